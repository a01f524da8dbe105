/**
 * Redis dies mid-run and comes back. The test starts and kills its OWN redis-server on a free port;
 * the machine's Redis is never touched.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fallbackStore } from '../../src/admission/fallback.js';
import { memoryAdmissionStore } from '../../src/admission/memory-store.js';
import { redisAdmissionStore } from '../../src/admission/redis-store.js';
import type { Logger } from '../../src/log/logger.js';

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** Polls (bounded) for a condition that a background probe brings about. */
async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(25);
  }
}

function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const log = (level: string) => (message: string) => lines.push({ level, message });
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

const hasRedisServer = await new Promise<boolean>((resolve) => {
  const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
  probe.once('error', () => resolve(false));
  probe.once('exit', (code) => resolve(code === 0));
});

describe('the Redis fallback', { skip: hasRedisServer ? false : 'redis-server is not installed' }, () => {
  const started: ChildProcess[] = [];
  after(async () => {
    for (const child of started) await stopRedis(child);
  });

  it('reports unused without Redis', () => {
    const store = fallbackStore(null, memoryAdmissionStore(), recordingLogger());
    assert.equal(store.status(), 'unused');
  });

  it('keeps answering exactly from the local store while Redis is down, and goes back when it returns', async () => {
    const port = await freePort();
    started.push(await startRedis(port));
    const remote = redisAdmissionStore(`redis://127.0.0.1:${port}`, { prefix: 'fault:' });
    const logger = recordingLogger();
    const store = fallbackStore(remote, memoryAdmissionStore(), logger, { probeMs: 50 });
    try {
      await remote.ready();
      const now = Date.UTC(2026, 0, 1);
      const list = [{ key: 'a:user-login:x', perMinute: 10, burst: 10 }];
      assert.equal((await store.admit(list, undefined, now)).kind, 'ok');
      assert.equal(store.status(), 'ok');

      await stopRedis(started[0]!);
      const answers = [];
      for (let i = 0; i < 30; i++) answers.push((await store.admit(list, undefined, now)).kind);
      assert.equal(store.status(), 'down');
      // The local store starts afresh and is exact: 10 of 30, then refusals.
      assert.equal(answers.filter((k) => k === 'ok').length, 10);
      assert.equal(await store.failure('b:someone', now), 1);
      assert.deepEqual(
        logger.lines.filter((l) => l.level === 'warn').map((l) => l.message),
        ['redis unavailable: admission on the local store until it answers'],
      );

      started.push(await startRedis(port));
      await eventually(() => store.status() === 'ok');
      // Back on the restarted (empty) Redis: a fresh bucket again.
      assert.equal((await store.admit(list, undefined, now)).kind, 'ok');
      assert.equal(logger.lines.filter((l) => l.level === 'warn').length, 1);
      assert.equal(logger.lines.filter((l) => l.level === 'info').length, 1);
    } finally {
      store.close();
      await remote.close();
    }
  });
});

/**
 * Redis dies mid-run and comes back. The test starts and kills its OWN redis-server on a free port;
 * the machine's Redis is never touched.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { fallbackStore, REDIS_DOWN_MESSAGE } from '../../src/services/admission/store.js';
import { memoryAdmissionStore, replayKey } from '../../src/services/admission/memory-store.js';
import { redisAdmissionStore } from '../../src/services/admission/redis-store.js';
import type { Logger } from '../../src/log/logger.js';
import { eventually, freePort, hasRedisServer, startRedis, stopRedis } from '../helpers/redis.js';

type Line = { level: string; message: string; fields?: Record<string, unknown> };

function recordingLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

describe('the Redis fallback', { skip: hasRedisServer ? false : 'redis-server is not installed' }, () => {
  const started: ChildProcess[] = [];
  after(async () => {
    for (const child of started) await stopRedis(child);
  });

  it('reports unused without Redis', () => {
    const store = fallbackStore(null, memoryAdmissionStore(), recordingLogger());
    assert.equal(store.status(), 'unused');
  });

  it('names Redis in its warning by host and port, never by its password or a library message alone', async () => {
    const port = await freePort(); // nothing listens there
    const remote = redisAdmissionStore(`redis://admission:hunter2-secret@127.0.0.1:${port}/0`, { prefix: 'fault:' });
    const logger = recordingLogger();
    const store = fallbackStore(remote, memoryAdmissionStore(), logger, { probeMs: 50 });
    try {
      await store.admit([{ key: 'a:user-login:x', perMinute: 10, burst: 10 }], undefined, Date.UTC(2026, 0, 1));
      const warned = logger.lines.filter((l) => l.level === 'warn');
      assert.equal(warned.length, 1);
      assert.equal(warned[0]?.fields?.['redis'], `127.0.0.1:${port}`);
      assert.doesNotMatch(JSON.stringify(warned), /hunter2/);
    } finally {
      store.close();
      await remote.close();
    }
  });

  it('limits exactly on the local store and refuses replay checks while Redis is down, and goes back when it returns', async () => {
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
      // Replay cannot be checked without Redis: refused, and recorded nowhere.
      const replay = { key: replayKey(randomBytes(32)), expiresAtMs: now + 60_000 };
      assert.equal((await store.admit(list, replay, now + 60_000)).kind, 'unavailable');
      assert.deepEqual(
        logger.lines.filter((l) => l.level === 'warn').map((l) => l.message),
        [REDIS_DOWN_MESSAGE],
      );

      started.push(await startRedis(port));
      await eventually(() => store.status() === 'ok');
      // Back on the restarted (empty) Redis: a fresh bucket again, and the refused token goes through once.
      assert.equal((await store.admit(list, undefined, now)).kind, 'ok');
      assert.equal((await store.admit([], replay, now)).kind, 'ok');
      assert.equal((await store.admit([], replay, now)).kind, 'replayed');
      assert.equal(logger.lines.filter((l) => l.level === 'warn').length, 1);
      assert.equal(logger.lines.filter((l) => l.level === 'info').length, 1);
    } finally {
      store.close();
      await remote.close();
    }
  });
});

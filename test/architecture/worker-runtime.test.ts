/**
 * How the primary starts its workers (src/cluster/worker-runtime.ts): small V8 semi-spaces, and as many
 * libuv pool threads as the worker may run password hashes at once, so that a worker does not keep
 * 19 MiB of argon2 memory per pool thread. What the operator chose is kept. Checked on a real cluster
 * through /proc (Linux).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { workerEnv, workerExecArgv } from '../../src/cluster/worker-runtime.js';
import { spawnAuthsvc } from '../helpers/process.js';

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

function environOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

const argvOf = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

describe('worker runtime', () => {
  it('starts each worker with 4 MB semi-spaces, one V8 platform thread and one pool thread per hash it may run at once', async () => {
    const server = await spawnAuthsvc({ workers: 2 });
    try {
      const workers = childrenOf(server.child.pid ?? 0);
      assert.equal(workers.length, 2);
      const concurrency = Math.max(1, Math.floor(availableParallelism() / 2));
      for (const pid of workers) {
        assert.equal(environOf(pid).get('UV_THREADPOOL_SIZE'), String(concurrency));
        for (const flag of ['--max-semi-space-size=4', '--v8-pool-size=1'])
          assert.ok(argvOf(pid).includes(flag), argvOf(pid).join(' '));
      }
      // The primary's own environment is the operator's: it sets nothing for itself.
      assert.equal(environOf(server.child.pid ?? 0).get('UV_THREADPOOL_SIZE'), undefined);
    } finally {
      await server.stop();
    }
  });

  it("keeps the operator's pool size and semi-space size", () => {
    assert.deepEqual(workerEnv({ UV_THREADPOOL_SIZE: '8' }, 4), {});
    assert.deepEqual(workerExecArgv([], { NODE_OPTIONS: '--max-semi-space-size=16 --v8-pool-size=2' }), []);
    assert.deepEqual(workerExecArgv(['--max-semi-space-size=2'], {}), ['--max-semi-space-size=2', '--v8-pool-size=1']);
    assert.deepEqual(workerExecArgv(['--v8-pool-size=3'], {}), ['--v8-pool-size=3', '--max-semi-space-size=4']);
  });

  it('gives a worker at least one pool thread however many workers share the cores', () => {
    assert.deepEqual(workerEnv({}, availableParallelism() * 4), { UV_THREADPOOL_SIZE: '1' });
    assert.deepEqual(workerExecArgv(['--enable-source-maps'], {}), [
      '--enable-source-maps',
      '--max-semi-space-size=4',
      '--v8-pool-size=1',
    ]);
  });
});

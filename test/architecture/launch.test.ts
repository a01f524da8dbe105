/**
 * How an authsvc process is launched (src/cluster/launch.ts): both entry files import it first, it
 * sizes libuv's pool to the cores unless the operator did, and leaves the environment as it was.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { NODE_FLAGS } from '../../src/cluster/launch.js';
import { PKG_DIR } from '../../src/package-dir.js';

const source = (file: string): string => readFileSync(join(PKG_DIR, 'src', file), 'utf8');

/**
 * Runs launch.ts in a fresh node (its own type stripping: tsx's loader would start the pool first),
 * then 8 tasks on the pool; answers the pool's threads and what the environment then says.
 */
function launched(env: Record<string, string>): { threads: number; variable: string | null } {
  const probe = `
    await import(${JSON.stringify(join(PKG_DIR, 'src', 'cluster', 'launch.ts'))});
    const { pbkdf2 } = await import('node:crypto');
    const { readdirSync, readFileSync } = await import('node:fs');
    await Promise.all(Array.from({ length: 8 }, () => new Promise((r) => pbkdf2('a', 'b', 20000, 32, 'sha256', r))));
    const names = readdirSync('/proc/self/task').map((t) => readFileSync('/proc/self/task/' + t + '/comm', 'utf8'));
    console.log(JSON.stringify({
      threads: names.filter((name) => name.startsWith('libuv-worker')).length,
      variable: process.env.UV_THREADPOOL_SIZE ?? null,
    }));`;
  const run = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', probe],
    { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as { threads: number; variable: string | null };
}

describe('launch', () => {
  it('is the first import of both entry files, and the bin carries the V8 flag in its first line', () => {
    for (const file of ['bin.ts', 'start.ts']) {
      const firstImport = /^import .*$/m.exec(source(file))?.[0];
      assert.equal(firstImport, "import './cluster/launch.js';", file);
    }
    assert.equal(source('bin.ts').split('\n', 1)[0], `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  });

  it(
    'gives the pool one thread per core and leaves the environment as it was',
    { skip: process.platform !== 'linux' && 'Linux only (/proc)' },
    () => {
      assert.deepEqual(launched({}), { threads: availableParallelism(), variable: null });
    },
  );

  it("keeps the operator's pool size", { skip: process.platform !== 'linux' && 'Linux only (/proc)' }, () => {
    assert.deepEqual(launched({ UV_THREADPOOL_SIZE: '3' }), { threads: 3, variable: '3' });
  });
});

/**
 * `npm run bench` works end to end: one action, one short window, its files written. Only that it ran
 * and what it counted are checked; no figure is (speed is reported by the bench, never asserted).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cutProfile } from '../../bench/lib/profile.js';
import type { BenchResults } from '../../bench/lib/report.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { childEnv } from '../helpers/child-env.js';

const out = mkdtempSync(join(tmpdir(), 'authsvc-bench-test-'));
after(() => rmSync(out, { recursive: true, force: true }));

function runBench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'bench', 'run.ts'), ...args],
    {
      cwd: PKG_DIR,
      env: childEnv(),
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run bench', () => {
  it('drives one action against authsvc and the floor, and writes latest.json and latest.md', async () => {
    const run = await runBench([
      '--from-source',
      '--workers=1',
      '--concurrency=2',
      '--duration=0.5',
      '--warmup=0.2',
      '--actions=session-exists',
      '--footprint=none',
      `--out=${out}`,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as BenchResults;
    const [server] = results.runs;
    assert.ok(server);
    assert.equal(server.workers, 1);
    assert.deepEqual(
      server.points.map((p) => [p.action, p.concurrency, p.errors]),
      [['session-exists', 2, 0]],
    );
    const [point] = server.points;
    assert.ok(point && point.requests >= 2, 'every client answered at least once');
    assert.ok(point.server_cpu_us >= 0 && point.floor_ratio !== null);
    assert.equal(point.hash_share, null);
    assert.equal(point.parallel_hash_share, null);
    assert.equal(results.floor.points[0]?.errors, 0);
    // The floor with session-exists's read, with session-new's write, and the read through Koa answered every request too.
    assert.deepEqual(
      [results.floor_with_db.read, results.floor_with_db.write, results.floor_with_db.koa_read].map((points) =>
        points.map((p) => p.errors),
      ),
      [[0], [0], [0]],
    );
    assert.ok(point.db_floor_ratio !== null);
    assert.ok(results.hash_limit.verifyCpuMs > 0 && results.hash_limit.perSecond > 0);
    assert.ok(results.hash_limit.parallelPerSecond > 0 && results.hash_limit.parallelVerifyCpuMs > 0);
    // The floor and the hash limit are measured at the start and again at the end of the run.
    assert.equal(results.hash_limit_measured.length, 2);
    assert.deepEqual(
      [results.floor.measured.start, results.floor.measured.end].map((points) => points.map((p) => p.errors)),
      [[0], [0]],
    );
    assert.ok((server.memory.idle_mb[0] ?? 0) > 0 && (server.memory.after_mb?.[0] ?? 0) > 0);
    assert.ok((server.memory.settled_mb?.[0] ?? 0) > 0);
    assert.ok(server.startup.restart_healthy_ms >= (server.startup.restart_listening_ms ?? Infinity));
    const md = readFileSync(join(out, 'latest.md'), 'utf8');
    assert.equal(run.stdout, md);
    assert.match(md, /^## sqlite, --workers 1$/m);
    assert.match(md, /^\| session-exists \| 2 \| \d+ \|/m);
    assert.match(md, /^\| bare, end of the run \| 2 \| \d+ \|/m);
  });

  it('refuses an unknown action and shows the flags', async () => {
    const run = await runBench(['--actions=session-teleport']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown action "session-teleport"/);
    assert.match(run.stderr, /--concurrency/);
  });
});

describe('bench profile cutting', () => {
  // Samples at 10, 20, 30, 40 µs after a start of 1000 µs, on nodes 2, 3, 2, 3.
  const profile = {
    nodes: [{ id: 1 }, { id: 2 }, { id: 3 }],
    startTime: 1000,
    endTime: 1050,
    samples: [2, 3, 2, 3],
    timeDeltas: [10, 10, 10, 10],
  };

  it('keeps only the samples inside the window, with their times and hit counts', () => {
    const cut = cutProfile(profile, 1015, 1030);
    assert.deepEqual(cut.samples, [3, 2]);
    assert.deepEqual(cut.timeDeltas, [5, 10]);
    assert.equal(cut.startTime, 1015);
    assert.equal(cut.endTime, 1030);
    assert.deepEqual(
      cut.nodes.map((n) => n.hitCount),
      [0, 1, 1],
    );
  });

  it('keeps nothing from a window outside the profile', () => {
    assert.deepEqual(cutProfile(profile, 2000, 3000).samples, []);
  });
});

/**
 * Logging never blocks the event loop, even when nobody reads standard output: a real child process
 * logs ~11 MB into a pipe the test does not read. Its timer keeps firing, it drops what does not fit
 * in its bounded buffer, says how many lines it dropped once the pipe is read again, and its last
 * line still arrives when it exits.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';

const TSX = import.meta.resolve('tsx');
const LINES = 50_000;

describe('logging into a pipe nobody reads', () => {
  it('does not block: the timer fires, overflow is dropped and counted once drained, the last line arrives', async () => {
    const child = spawn(
      process.execPath,
      ['--import', TSX, join(PKG_DIR, 'test', 'log', 'fixtures', 'flood.ts'), String(LINES)],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    let stderr = '';
    const ticks = (): number => Number(/tick (\d+)\n(?![\s\S]*tick)/.exec(stderr)?.[1] ?? 0);
    const waitFor = (test: () => boolean, what = 'the child'): Promise<void> =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + 60_000;
        const check = (): void => {
          if (test()) resolve();
          else if (Date.now() > deadline) reject(new Error(`${what}: not in time; stderr: ${stderr.slice(-300)}`));
          else setTimeout(check, 20);
        };
        check();
      });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Standard output is not read yet: the pipe and the child's buffer fill up.
    await waitFor(() => stderr.includes(`logged ${LINES}`));
    const ticksWhenLogged = ticks();
    await waitFor(() => ticks() >= ticksWhenLogged + 5);
    assert.ok(ticks() >= ticksWhenLogged + 5, 'the event loop keeps turning while the pipe is full');

    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor(() => stdout.includes('log lines dropped'), 'the report of dropped lines');
    child.stdin.write('stop\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    assert.equal(code, 0, stderr);

    const entries = stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { message: string; i?: number; dropped?: number });
    const reports = entries.filter((e) => e.message.startsWith('log lines dropped'));
    assert.equal(reports.length, 1, 'one report for the whole overflow');
    const dropped = reports[0]?.dropped ?? 0;
    const requests = entries.filter((e) => e.message === 'request');
    assert.ok(dropped > 0, 'about 11 MB do not fit in 4 MiB plus a pipe: lines were dropped');
    assert.equal(requests.length + dropped, LINES, 'every line is either written or counted');
    assert.equal(entries.at(-1)?.message, 'stopped', 'the last line arrives at exit');
  });
});

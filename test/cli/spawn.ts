import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';
import { childEnv } from '../helpers/child-env.js';

/**
 * The command line of `authsvc` (or `npm start` with entry start.ts): the built server in dist/, which
 * scripts/run-tests.mjs builds before any test runs, as a user runs it and a third faster to start than the source
 * through tsx. A copy of the package (`pkgDir`) must hold a copy of dist/.
 */
function commandOf(entry: string, pkgDir: string | undefined): string[] {
  return [join(pkgDir ?? PKG_DIR, 'dist', entry.replace(/\.ts$/, '.js'))];
}

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `authsvc` to completion, with `input` piped to its stdin. */
export function runAuthsvc(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string; entry?: string; pkgDir?: string },
): Promise<Finished> {
  const child = spawn(process.execPath, [...commandOf(options.entry ?? 'bin.ts', options.pkgDir), ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  stop(): Promise<number | null>;
}

/** Starts a long-running authsvc and waits for its "listening" log line. */
export function startAuthsvc(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; entry?: string; pkgDir?: string },
): Promise<Started> {
  const child = spawn(process.execPath, [...commandOf(options.entry ?? 'bin.ts', options.pkgDir), ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = (): Promise<number | null> =>
    new Promise((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      child.on('close', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`authsvc did not start:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /"message":"listening"[^\n]*"url":"([^"]+)"|"url":"([^"]+)"[^\n]*"message":"listening"/.exec(
        output,
      );
      if (match !== null) {
        clearTimeout(timer);
        resolve({ child, url: match[1] ?? match[2] ?? '', output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`authsvc exited with ${String(code)}:\n${output}`));
    });
  });
}

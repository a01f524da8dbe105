/** What the benches share: a real server from dist on a free port, and latency percentiles. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';

export interface BenchServer {
  readonly url: string;
  readonly secret: string;
  readonly basedir: string;
  /** The server process (the primary when it runs workers). */
  readonly pid: number;
  /** From the spawn to the "listening" line, and as the server measured it. */
  readonly startupMsWall: number;
  readonly startupMsInProcess: number;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js` (run `npm run build` first) with SQLite in a temporary folder unless `env` says otherwise. */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const basedir = mkdtempSync(join(tmpdir(), 'authsvc-bench-'));
  const secret = generateFernetKey();
  const port = 20000 + Math.floor(Math.random() * 20000);
  const started = performance.now();
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [join(PKG_DIR, 'dist', 'main.js')], {
    env: {
      PATH: process.env['PATH'] ?? '',
      AUTHSVC_SECRET: secret,
      AUTHSVC_PIISALT: 'bench-salt-bench',
      AUTHSVC_AUTHDB: 'sqlite:///bench.sqlite',
      AUTHSVC_BASEDIR: basedir,
      AUTHSVC_PORT: String(port),
      AUTHSVC_WORKERS: '1',
      AUTHSVC_PWNEDURL: 'none',
      AUTHSVC_SERVERNAME: 'bench.example',
      AUTHSVC_ADMIN_PASSWORD: 'bench-password-1234',
      // Benches measure the work of each action; limits are asked for explicitly (env).
      AUTHSVC_RATELIMITS: 'none',
      AUTHSVC_LOGINBACKOFF: 'none',
      ...env,
    },
  });
  child.stderr.pipe(process.stderr);
  const inProcess = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"startup_ms":(\d+)/.exec(buffered);
      if (match !== null) resolve(Number(match[1]));
    });
    child.on('exit', (code) => {
      reject(new Error(`server exited ${String(code)}`));
    });
  });
  const startupMsWall = Math.round(performance.now() - started);
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}/`,
    secret,
    basedir,
    pid: child.pid ?? 0,
    startupMsWall,
    startupMsInProcess: inProcess,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
      rmSync(basedir, { recursive: true, force: true });
    },
  };
}

/** The p-th percentile (0…1) of sorted latencies, in ms with two decimals. */
export function percentile(sorted: readonly number[], p: number): string {
  return (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(2);
}

/**
 * CPU seconds (user + system) used so far by a process and its descendants that are still running,
 * read from /proc (Linux): the server's own cost, without the load generator's.
 */
export function processTreeCpuSeconds(rootPid: number): number {
  const ticks = 100; // USER_HZ on Linux
  const children = (pid: number): number[] => {
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const own = (pid: number): number => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      return 0;
    }
  };
  const walk = (pid: number): number => own(pid) + children(pid).reduce((sum, c) => sum + walk(c), 0);
  return walk(rootPid);
}

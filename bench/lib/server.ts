/** What the benches share: a real server from dist on a free port, and latency percentiles. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';

export interface BenchServer {
  readonly url: string;
  readonly secret: string;
  readonly basedir: string;
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

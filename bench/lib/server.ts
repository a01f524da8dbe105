/** What the benches share: a real server from dist on a free port, and latency percentiles. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { firstMatch } from './first-match.js';

export interface BenchServer {
  readonly url: string;
  readonly secret: string;
  readonly basedir: string;
  /** The server process (the primary when it runs workers). */
  readonly pid: number;
  /** From the spawn to the "listening" line, and as the server measured it. */
  readonly startupMsWall: number | null;
  /** The server's own start-up time, from its start-up line (null when its log level hides the line). */
  readonly startupMsInProcess: number | null;
  /** From the spawn to the first 200 of GET /health. */
  readonly healthyMsWall: number;
  /** CPU time the server's processes had used when healthy: start-up's cost, whatever else the machine runs. */
  readonly startupCpuMs: number;
  /** Stops the server; the data folder is removed unless `keepBasedir`. */
  stop(options?: { readonly keepBasedir?: boolean }): Promise<void>;
}

export interface BenchServerOptions {
  /** Arguments for node before the script, e.g. `--cpu-prof` (NODE_OPTIONS does not allow it). */
  readonly nodeArgs?: readonly string[];
  /** Start on an existing data folder (a restart) with its secret, instead of a fresh one. */
  readonly reuse?: { readonly basedir: string; readonly secret: string };
  /** Run src/bin.ts through tsx instead of dist/bin.js (tests: no build needed; slower start, more memory). */
  readonly fromSource?: boolean;
  /** Another build's `bin.js` instead of dist/bin.js (A/B against a baseline whose package directory holds it). */
  readonly script?: string;
  /** A program that runs node, e.g. `valgrind --tool=callgrind …` (lib/instructions.ts); start-up may then take minutes. */
  readonly wrapper?: readonly string[];
}

/** Starts `authsvc` from dist (run `npm run build` first; authsvcCommand) with SQLite in a temporary folder unless `env` says otherwise. */
export async function startBenchServer(
  env: Record<string, string> = {},
  options: BenchServerOptions = {},
): Promise<BenchServer> {
  const basedir = options.reuse?.basedir ?? mkdtempSync(join(tmpdir(), 'authsvc-bench-'));
  const secret = options.reuse?.secret ?? generateFernetKey();
  // Below Linux's ephemeral range (32768–60999): the load generator's own sockets take ports there, and
  // a server told to listen on one of them cannot start.
  const port = 20000 + Math.floor(Math.random() * 12000);
  const started = performance.now();
  const [program, ...wrapperArgs] = [...(options.wrapper ?? []), process.execPath];
  const child: ChildProcessWithoutNullStreams = spawn(
    program,
    [
      ...wrapperArgs,
      ...(options.nodeArgs ?? []),
      ...(options.fromSource === true
        ? ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'bin.ts')]
        : authsvcCommand(options.script)),
    ],
    {
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
        AUTHSVC_ADMIN_EMAIL: BENCH_ADMIN.email,
        AUTHSVC_ADMIN_PASSWORD: BENCH_ADMIN.password,
        // Benches measure the work of each action; limits are asked for explicitly (env).
        AUTHSVC_RATELIMITS: 'none',
        AUTHSVC_LOGINBACKOFF: 'none',
        ...env,
      },
    },
  );
  child.stderr.pipe(process.stderr);
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code) => reject(new Error(`server exited ${String(code)}`))),
  );
  exited.catch(() => undefined); // after the start, an exit is stop()'s business
  const url = `http://127.0.0.1:${port}/`;
  const line = firstMatch(child.stdout, /"startup_ms":(\d+)/);
  // The start-up line is an info line: a server told to log less (AUTHSVC_LOGLEVEL=warn) never prints
  // it, so a server that has been healthy for a while without it ends the wait too. (With workers, the
  // first worker answers /health before the primary's line, which waits for every worker.)
  const healthWaitMs = options.wrapper === undefined ? 30_000 : 300_000;
  const firstHealthy = waitHealthy(url, healthWaitMs).then(() => performance.now());
  firstHealthy.catch(() => undefined); // a server that exits first is reported by exited
  const inProcess = await Promise.race([
    // Output that ends without the line means the server exited: its exit code says more.
    line.then(
      (match) => Number(match[1]),
      () => exited,
    ),
    exited,
    firstHealthy.then(() => new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000))),
  ]);
  const startupMsWall = inProcess === null ? null : Math.round(performance.now() - started);
  // Healthy: the first GET /health 200 after the start-up line (or the first at all without one).
  const healthyAt =
    inProcess === null ? await firstHealthy : await waitHealthy(url, healthWaitMs).then(() => performance.now());
  const healthyMsWall = Math.round(healthyAt - started);
  const startupCpuMs = Math.round(processTreeCpuSeconds(child.pid ?? 0) * 1000);
  return {
    url,
    secret,
    basedir,
    pid: child.pid ?? 0,
    startupMsWall,
    startupMsInProcess: inProcess,
    healthyMsWall,
    startupCpuMs,
    async stop(stopOptions = {}) {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      if (stopOptions.keepBasedir !== true) rmSync(basedir, { recursive: true, force: true });
    },
  };
}

/**
 * What the `authsvc` command runs: node with the flags of dist/bin.js's `#!/usr/bin/env -S node …` line, then that
 * file, so the bench measures the process an operator starts. Another build's entry (`--server`) runs the same way:
 * without its flags it had V8's default young generation and a third of our scavenges, which made this build look
 * 14 % dearer on session-new than it was (docs/performance.md). A `--server` file without such a line runs as it is.
 */
function authsvcCommand(script?: string): string[] {
  const bin = script ?? join(PKG_DIR, 'dist', 'bin.js');
  const shebang = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  const flags = /^#!\/usr\/bin\/env -S node((?: --[\w=-]+)*)$/.exec(shebang)?.[1];
  if (flags === undefined && script === undefined) throw new Error(`${bin}: unexpected first line ${shebang}`);
  return [...(flags ?? '').split(' ').filter(Boolean), bin];
}

/** The administrator every bench server is set up with (first start), so logins can be driven through the protocol. */
export const BENCH_ADMIN = { email: 'admin@bench.example', password: 'bench-password-1234' } as const;

/** Resolves at the first 200 of GET /health (polled every 10 ms, for at most `waitMs`). */
async function waitHealthy(url: string, waitMs: number): Promise<void> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    try {
      const reply = await fetch(new URL('health', url));
      await reply.arrayBuffer();
      if (reply.status === 200) return;
    } catch {
      // not accepting yet
    }
    if (performance.now() > deadline) throw new Error(`${url}health did not answer 200 within ${waitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The p-th percentile (0…1) of sorted latencies, in ms with two decimals. */
export function percentile(sorted: readonly number[], p: number): string {
  return (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(2);
}

/** The process and its descendants that are still running (Linux /proc). */
export function processTree(rootPid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${rootPid}/task/${rootPid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    children = [];
  }
  return [rootPid, ...children.flatMap(processTree)];
}

/**
 * CPU seconds (user + system) used so far by a process and its descendants that are still running,
 * read from /proc (Linux): the server's own cost, without the load generator's.
 */
export function processTreeCpuSeconds(rootPid: number): number {
  const ticks = 100; // USER_HZ on Linux
  const own = (pid: number): number => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      return 0;
    }
  };
  return processTree(rootPid).reduce((sum, pid) => sum + own(pid), 0);
}

/** Resident memory in MB of each process of the tree (the root first), from /proc/<pid>/status VmRSS. */
export function processTreeRssMb(rootPid: number): number[] {
  return processTree(rootPid).map((pid) => {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return Math.round(Number(kb ?? 0) / 1024);
    } catch {
      return 0;
    }
  });
}

/**
 * The memory of a process tree all together, in MB: the sum of each process's PSS (/proc/<pid>/smaps_rollup),
 * which counts a page shared by n processes (node's own code, the libraries) as 1/n in each. Summed RSS
 * counts such pages once per process.
 */
export function processTreePssMb(rootPid: number): number {
  const kb = processTree(rootPid).reduce((sum, pid) => {
    try {
      return sum + Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      return sum;
    }
  }, 0);
  return Math.round(kb / 1024);
}

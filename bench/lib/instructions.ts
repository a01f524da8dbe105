/**
 * `npm run bench -- --quick a,b --instructions`: the CPU instructions one request of each action costs the server,
 * counted by valgrind's callgrind. On a shared virtual machine the CPU time per request of one build varied by 2×
 * between runs, which hid any change under 30 %; an instruction count repeats within about 1 % (docs/performance.md),
 * so an A/B (`--server` another build's entry file) can see a few per cent. It counts instructions, not time: cache
 * misses and waits are not in it, so the load tables stay the figures that say how fast a build is.
 *
 * The server runs under callgrind with instrumentation off while it starts and warms up (one client, 3,000
 * iterations: after 1,000, V8's optimising compiler still made up a tenth of the count and most of its spread),
 * then on for `--requests` iterations one after another. Every thread of the server is counted (the compiler's
 * and the thread pool's too), the load generator is not.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { benchCaller, prepare } from './actions.js';
import type { BenchAction, BenchCall, Iteration } from './actions.js';
import { FIRST_CLEANUP_AFTER_MS } from '../../src/services/store/cleanup-timer.js';
import { prepareDatabase } from './databases.js';
import type { BenchDatabase } from './databases.js';
import type { BenchOptions, QuickOptions } from './options.js';
import { table } from './report.js';
import { startBenchServer } from './server.js';
import type { BenchServerOptions } from './server.js';

export interface InstructionCount {
  readonly database: BenchDatabase;
  readonly action: BenchAction;
  readonly requests: number;
  readonly instructions_per_request: number;
  /** Of those, V8's compilers still optimising in the window (Node 22 optimises some hot functions only after ~10,000 requests). */
  readonly compiler_per_request: number;
}

/** How long the first purge may take under valgrind, after it starts. */
const PURGE_ALLOWANCE_MS = 20_000;

const say = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};

/** V8's compilers (parsing, Sparkplug, Maglev, TurboFan) and deoptimisation: work that warm-up only shortens. */
const COMPILER = /compiler::|maglev::|Maglev|Turbofan|Parser|Scanner|BytecodeGenerator|Deoptimiz|Zone::/;

/**
 * V8's garbage collector: scavenges, marking, sweeping, compaction. A major collection is a lump of tens of
 * millions of instructions that lands in one counted window and not in another.
 */
const GC = /Scaveng|MarkCompact|Marking|Sweeper|Evacuat|MinorMS|MinorMark|Heap::|GCTracer|RememberedSet|SlotSet/;

/**
 * The instructions callgrind counted in `files` (one per process and dump), and those of them spent in V8's
 * compilers and in its garbage collector, read per function with callgrind_annotate.
 */
function countedInstructions(files: readonly string[]): Counted {
  let total = 0;
  let compiler = 0;
  let gc = 0;
  for (const path of files) {
    total += Number(/^totals: (\d+)/m.exec(readFileSync(path, 'utf8'))?.[1] ?? 0);
    const annotated = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', path], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    const seen = new Set<string>();
    for (const line of annotated.split('\n')) {
      const match = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.+)$/.exec(line);
      const [, count, name] = match ?? [];
      if (count === undefined || name === undefined || name === 'PROGRAM TOTALS' || seen.has(name)) continue;
      seen.add(name);
      if (COMPILER.test(name)) compiler += Number(count.replaceAll(',', ''));
      else if (GC.test(name)) gc += Number(count.replaceAll(',', ''));
    }
  }
  return { total, compiler, gc };
}

/** Instructions counted in one window: all of them, those of V8's compilers and those of its collector. */
export interface Counted {
  readonly total: number;
  readonly compiler: number;
  readonly gc: number;
}

/** A server under callgrind, instrumentation off but while `count` runs. */
export interface CountedServer {
  readonly call: BenchCall;
  /** When the process was spawned (performance.now()). */
  readonly spawnedAt: number;
  /** Runs `iteration` `requests` times, one after another, counted; throws when one fails. */
  count(iteration: Iteration, requests: number): Promise<Counted>;
  /** Runs `iteration` `requests` times uncounted (warm-up); throws when one fails. */
  run(iteration: Iteration, requests: number): Promise<void>;
  stop(options?: { readonly keepBasedir?: boolean }): Promise<void>;
}

async function repeat(iteration: Iteration, requests: number): Promise<void> {
  for (let i = 0; i < requests; i++) {
    const result = await iteration();
    if (!result.ok) throw new Error(`a counted request failed: ${result.failure ?? 'failed'}`);
  }
}

/** Starts authsvc (one process) under callgrind with `env`; each `count` reads the dump it made. */
export async function startCountedServer(
  env: Record<string, string>,
  options: Pick<BenchServerOptions, 'nodeArgs' | 'script' | 'reuse'> = {},
): Promise<CountedServer> {
  const out = mkdtempSync(join(tmpdir(), 'authsvc-callgrind-'));
  const spawnedAt = performance.now();
  const server = await startBenchServer(
    { AUTHSVC_WORKERS: '1', AUTHSVC_LOGLEVEL: 'warn', ...env },
    {
      ...options,
      wrapper: [
        'valgrind',
        '--quiet',
        '--tool=callgrind',
        '--instr-atstart=no',
        '--trace-children=yes',
        `--callgrind-out-file=${join(out, 'callgrind.%p')}`,
      ],
    },
  ).catch((error: unknown) => {
    rmSync(out, { recursive: true, force: true });
    throw error;
  });
  const { call, client } = benchCaller(server.url, server.secret);
  const control = (...args: string[]): void => {
    execFileSync('callgrind_control', [...args, String(server.pid)], { stdio: 'ignore' });
  };
  const read = new Set<string>();
  return {
    call,
    spawnedAt,
    run: repeat,
    async count(iteration, requests) {
      control('--zero');
      control('--instr=on');
      let dumps: string[] = [];
      try {
        await repeat(iteration, requests);
      } finally {
        control('--instr=off');
        control('--dump');
        // The dumps this one made: `callgrind.<pid>.<n>`, one per process. `callgrind.<pid>` is the file each
        // process writes when it exits (instrumentation off by then): it may be empty until it does.
        dumps = readdirSync(out).filter((file) => /\.\d+\.\d+$/.test(file) && !read.has(file));
        for (const file of dumps) read.add(file);
      }
      return countedInstructions(dumps.map((file) => join(out, file)));
    },
    async stop(stopOptions) {
      client.close();
      await server.stop(stopOptions).finally(() => rmSync(out, { recursive: true, force: true }));
    },
  };
}

async function countAction(
  options: BenchOptions,
  quick: QuickOptions,
  database: BenchDatabase,
  action: BenchAction,
  counts: { readonly warmup: number; readonly requests: number },
): Promise<InstructionCount> {
  const db = await prepareDatabase(database, 'ir');
  try {
    const counted = await startCountedServer(
      { AUTHSVC_AUTHDB: db.authdb, ...options.serverEnv },
      { nodeArgs: quick.nodeArgs, ...(quick.script === undefined ? {} : { script: quick.script }) },
    );
    try {
      const iteration = await prepare(action, counted.call);
      say(`${database}: ${action}, ${counts.warmup} requests to warm up, then ${counts.requests} counted`);
      await counted.run(iteration, counts.warmup);
      // The first purge runs a minute after the start, inside the counted window under valgrind's slowness
      // (it doubled the count once): wait until it has run, then warm up again for what it compiled.
      const purgeDoneAt = counted.spawnedAt + FIRST_CLEANUP_AFTER_MS + PURGE_ALLOWANCE_MS;
      if (performance.now() < purgeDoneAt) {
        say(`${action}: waiting for the first purge to run before counting`);
        await sleep(purgeDoneAt - performance.now());
        await counted.run(iteration, Math.ceil(counts.warmup / 6));
      }
      const { total, compiler } = await counted.count(iteration, counts.requests);
      return {
        database,
        action,
        requests: counts.requests,
        instructions_per_request: Math.round(total / counts.requests),
        compiler_per_request: Math.round(compiler / counts.requests),
      };
    } finally {
      await counted.stop();
    }
  } finally {
    await db.drop();
  }
}

/** Counts each action of the quick run on each database, and prints a table and one JSON line on stdout. */
export async function runInstructions(
  options: BenchOptions,
  quick: QuickOptions,
  counts: { readonly warmup: number; readonly requests: number },
): Promise<void> {
  if (spawnSync('valgrind', ['--version']).error !== undefined)
    throw new Error('--instructions: valgrind is not installed (apt install valgrind)');
  const rows: InstructionCount[] = [];
  for (const database of options.databases)
    for (const action of quick.actions) rows.push(await countAction(options, quick, database, action, counts));
  const lines = table(
    ['database', 'action', 'requests counted', 'instructions/request', 'of which compiler', 'without compiler'],
    rows.map((r) => [
      r.database,
      r.action,
      r.requests,
      r.instructions_per_request,
      r.compiler_per_request,
      r.instructions_per_request - r.compiler_per_request,
    ]),
  );
  process.stdout.write(`${lines.join('\n')}\n${JSON.stringify({ instructions: rows })}\n`);
}

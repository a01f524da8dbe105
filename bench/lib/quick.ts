/**
 * A quick run (`npm run bench -- --quick a,b`, `--hot-reads`, `--logins`): a few actions on one server per
 * database and worker count, each at each concurrency, with no floors and no files but profiles. For a
 * question about one action (did this change make session-exists cheaper?) in seconds rather than minutes;
 * the whole run's tables remain the figures to compare between versions.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { actionSpecs, isActionName, parseKeyring, sealJson } from '../../src/protocol/index.js';
import { benchCaller, prepare } from './actions.js';
import type { BenchAction } from './actions.js';
import { prepareDatabase } from './databases.js';
import type { BenchDatabase } from './databases.js';
import { measurePoint } from './measure.js';
import type { Point } from './measure.js';
import type { BenchOptions, QuickOptions } from './options.js';
import { cutProfiles, writeSummary } from './profile.js';
import type { Window } from './profile.js';
import { LOAD_COLUMNS, loadCells, table } from './report.js';
import { startBenchServer } from './server.js';

const say = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};

/** One action at one concurrency over the rounds: the least CPU per request, the best req/s, the median latencies. */
export interface QuickPoint extends Point {
  readonly action: BenchAction;
  readonly rounds: number;
  /** The median CPU per request over the rounds (with one round, server_cpu_us itself). */
  readonly server_cpu_us_median: number;
}

export interface QuickRun {
  readonly database: BenchDatabase;
  readonly workers: number;
  readonly startup_ms: number;
  readonly points: readonly QuickPoint[];
  readonly wrk: ReadonlyArray<{ readonly action: BenchAction; readonly concurrency: number; readonly output: string }>;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

/** The rounds of one point folded into one: on a shared machine, the least CPU is the least disturbed figure. */
function folded(action: BenchAction, rounds: readonly Point[]): QuickPoint {
  const first = rounds[0];
  if (first === undefined) throw new Error(`no round of ${action}`);
  const least = rounds.reduce((a, b) => (b.server_cpu_us < a.server_cpu_us ? b : a));
  return {
    ...least,
    action,
    rounds: rounds.length,
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    rps: Math.max(...rounds.map((r) => r.rps)),
    p50_ms: median(rounds.map((r) => r.p50_ms)),
    p90_ms: median(rounds.map((r) => r.p90_ms)),
    p99_ms: median(rounds.map((r) => r.p99_ms)),
    max_ms: Math.max(...rounds.map((r) => r.max_ms)),
    server_cpu_us_median: median(rounds.map((r) => r.server_cpu_us)),
  };
}

/** wrk replaying one sealed request: allowed only for actions that change nothing (no replay refusal). */
function replayWithWrk(
  url: string,
  secret: string,
  request: { readonly action: string; readonly body: Record<string, unknown> },
  concurrency: number,
  seconds: number,
  dir: string,
): string {
  const keyring = parseKeyring(secret);
  if (keyring === null) throw new Error('the bench server has no usable key');
  const sealed = sealJson(keyring, {
    request: request.action,
    body: request.body,
    reqid: 'wrk',
    client_ipaddr: '192.0.2.1',
  });
  const script = join(dir, 'post.lua');
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = "${sealed}"\nwrk.headers["Content-Type"] = "text/plain"\n`);
  const run = spawnSync('wrk', ['-t1', `-c${concurrency}`, `-d${seconds}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  return run.stdout;
}

async function quickRun(
  options: BenchOptions,
  quick: QuickOptions,
  database: BenchDatabase,
  workers: number,
  profiles: string[],
): Promise<QuickRun> {
  const db = await prepareDatabase(database, `q${workers}`);
  const rawProfiles = options.cpuProf ? mkdtempSync(join(tmpdir(), 'authsvc-prof-')) : null;
  const nodeArgs = [
    ...quick.nodeArgs,
    ...(rawProfiles === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${rawProfiles}`]),
  ];
  const wrkDir = mkdtempSync(join(tmpdir(), 'authsvc-wrk-'));
  try {
    const server = await startBenchServer(
      { AUTHSVC_AUTHDB: db.authdb, AUTHSVC_WORKERS: String(workers), ...options.serverEnv },
      { nodeArgs, fromSource: options.fromSource, ...(quick.script === undefined ? {} : { script: quick.script }) },
    );
    const { call, client } = benchCaller(server.url, server.secret);
    const windows: Window[] = [];
    const wrk: Array<QuickRun['wrk'][number]> = [];
    const measured = new Map<string, Point[]>();
    try {
      // The last request an iteration sends is its timed one: what wrk replays.
      const sent: { last?: { action: string; body: Record<string, unknown> } } = {};
      const iterations = new Map<BenchAction, Awaited<ReturnType<typeof prepare>>>();
      const bodies = new Map<BenchAction, { action: string; body: Record<string, unknown> }>();
      for (const action of quick.actions) {
        const iteration = await prepare(action, (name, body) => {
          sent.last = { action: name, body };
          return call(name, body);
        });
        await iteration();
        if (sent.last !== undefined) bodies.set(action, sent.last);
        iterations.set(action, iteration);
      }
      // Rounds interleave the actions, so a neighbour's burst on a shared machine spreads over all of them.
      for (let round = 0; round < quick.rounds; round++) {
        for (const action of quick.actions) {
          const iteration = iterations.get(action);
          if (iteration === undefined) continue;
          for (const concurrency of options.concurrency) {
            say(`${database}, --workers ${workers}: ${action}, ${concurrency} clients, round ${round + 1}`);
            const point = await measurePoint(
              iteration,
              concurrency,
              options.seconds,
              options.warmupSeconds,
              server.pid,
            );
            const key = `${action} ${concurrency}`;
            measured.set(key, [...(measured.get(key) ?? []), point]);
            windows.push({
              label: `quick-${database}-w${workers}-${action}-c${concurrency}-r${round + 1}`,
              fromUs: point.window_us[0],
              toUs: point.window_us[1],
            });
          }
        }
      }
      if (quick.wrk) {
        for (const action of quick.actions) {
          const request = bodies.get(action);
          const readOnly =
            request !== undefined && isActionName(request.action) && !actionSpecs[request.action].changesState;
          if (!readOnly) {
            say(`${action}: not replayed with wrk (it changes state, so a replay is refused)`);
            continue;
          }
          for (const concurrency of options.concurrency) {
            say(`${database}, --workers ${workers}: ${action}, ${concurrency} connections, wrk`);
            const output = replayWithWrk(server.url, server.secret, request, concurrency, options.seconds, wrkDir);
            wrk.push({ action, concurrency, output });
          }
        }
      }
    } finally {
      client.close();
      await server.stop();
    }
    if (rawProfiles !== null) {
      const out = join(options.outDir, 'profiles');
      mkdirSync(out, { recursive: true });
      profiles.push(...cutProfiles(rawProfiles, out, `quick-${database}-w${workers}`, windows));
    }
    const points = quick.actions.flatMap((action) =>
      options.concurrency.map((concurrency) => folded(action, measured.get(`${action} ${concurrency}`) ?? [])),
    );
    return { database, workers, startup_ms: server.healthyMsWall, points, wrk };
  } finally {
    rmSync(wrkDir, { recursive: true, force: true });
    if (rawProfiles !== null) rmSync(rawProfiles, { recursive: true, force: true });
    await db.drop();
  }
}

/** Runs the quick measure and prints its tables (and one JSON line of every figure) on stdout. */
export async function runQuick(options: BenchOptions, quick: QuickOptions): Promise<void> {
  if (quick.wrk && spawnSync('wrk', ['--version']).error !== undefined) throw new Error('--wrk: wrk is not installed');
  const profiles: string[] = [];
  const runs: QuickRun[] = [];
  for (const database of options.databases)
    for (const workers of options.workers) runs.push(await quickRun(options, quick, database, workers, profiles));
  if (options.cpuProf) writeSummary(join(options.outDir, 'profiles'), profiles);
  const lines: string[] = [];
  for (const run of runs) {
    lines.push(`## ${run.database}, --workers ${run.workers} (healthy ${run.startup_ms} ms after the spawn)`, '');
    lines.push(
      ...table(
        ['action', ...LOAD_COLUMNS, 'median CPU µs/req', 'rounds', 'client CPU µs/req'],
        run.points.map((p) => [p.action, ...loadCells(p), p.server_cpu_us_median, p.rounds, p.client_cpu_us]),
      ),
      '',
    );
    for (const w of run.wrk) lines.push(`wrk, ${w.action}, ${w.concurrency} connections:`, '', w.output.trim(), '');
  }
  process.stdout.write(`${lines.join('\n')}${JSON.stringify({ quick: runs })}\n`);
}

/**
 * `npm run bench -- --scale [N]` (docs/performance.md#a-million-users): on each database, every measured action's
 * server CPU per request and p99 on an empty database and then with N users (scale-data.ts) in the same run, and the
 * purge of the N expired sessions under load: its duration and the p99 of session-exists while it runs against
 * before it starts. One server process (`--workers 1`), 4 clients. Results go to <out>/scale-latest.{json,md}.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../../src/services/store/open-db.js';
import { MAINTENANCE_LIMITS } from '../../src/services/store/db.js';
import { parseDatabaseUrl } from '../../src/services/store/url.js';
import { BENCH_ACTIONS, benchCaller, HASH_BOUND, prepare, timedCall } from './actions.js';
import type { BenchAction, Iteration } from './actions.js';
import { prepareDatabase } from './databases.js';
import type { BenchDatabase } from './databases.js';
import { closedLoop } from './load.js';
import { measurePoint } from './measure.js';
import type { BenchOptions } from './options.js';
import { startBenchServer } from './server.js';
import type { BenchServer } from './server.js';
import { extraInfoIndex, writeScaleData } from './scale-data.js';

const say = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};

const CLIENTS = 4;
const SECONDS = 4;
/** Each action is measured this many times, interleaved; the least CPU per request is kept. */
const ROUNDS = 2;
/** Windows of the purge's load, and how long to wait for the purge (it starts a minute after the server). */
const WINDOW_SECONDS = 2;
const PURGE_WAIT_SECONDS = 900;

/** The bench's actions but those a password hash dominates: the ones whose cost could grow with the tables. */
const HOT: readonly BenchAction[] = BENCH_ACTIONS.filter((action) => !HASH_BOUND.has(action));

/** The lookups that used to read a table (issue 30): each answers at most a handful of users at scale. */
const lookups = (users: number): ReadonlyArray<readonly [string, Record<string, unknown>]> => [
  // One user at scale (ref is unique: scale-data.ts), none on the empty database.
  ['match extra_info (indexed key)', { by: 'extra_info', match: { ref: Math.ceil(users / 2) } }],
  ['match full_name, absent', { by: 'full_name', match: 'Nobody Of That Name' }],
  ['match created_on', { by: 'created_on', match: '2020-01-01T00:00:00+00:00' }],
  ['match last_login_success', { by: 'last_login_success', match: '2020-01-01T00:00:00+00:00' }],
  ['user-list one user', { user_id: 1 }],
];

interface Cost {
  readonly server_cpu_us: number;
  readonly p99_ms: number;
  readonly errors: number;
}

interface ScaleRow {
  readonly action: string;
  readonly empty: Cost;
  readonly full: Cost;
}

interface PurgeFigures {
  readonly duration_s: number;
  readonly p99_before_ms: number;
  readonly p99_during_ms: number;
  readonly max_during_ms: number;
  readonly requests_during: number;
}

interface ScaleRun {
  readonly database: BenchDatabase;
  readonly users: number;
  readonly load_seconds: number;
  readonly rows: readonly ScaleRow[];
  readonly purge: PurgeFigures | null;
}

const p99 = (sorted: readonly number[]): number =>
  Number((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0).toFixed(2));

/** Every measured action's iteration on `server` (fixtures made through the protocol). */
async function iterations(server: BenchServer, users: number): Promise<Array<readonly [string, Iteration]>> {
  const { call } = benchCaller(server.url, server.secret);
  const list: Array<readonly [string, Iteration]> = [];
  for (const action of HOT) list.push([action, await prepare(action, call)]);
  for (const [name, body] of lookups(users)) {
    list.push([name, timedCall(call, 'user_id' in body ? 'user-list' : 'user-lookup-match', body)]);
  }
  return list;
}

/** Each iteration measured ROUNDS times, interleaved: the least CPU per request, the better p99. */
async function costs(server: BenchServer, users: number): Promise<Map<string, Cost>> {
  const list = await iterations(server, users);
  const rounds = new Map<string, Cost[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, iteration] of list) {
      const point = await measurePoint(iteration, CLIENTS, SECONDS, 1, server.pid);
      rounds.set(name, [
        ...(rounds.get(name) ?? []),
        { server_cpu_us: point.server_cpu_us, p99_ms: point.p99_ms, errors: point.errors },
      ]);
      say(`${name}: ${point.server_cpu_us} µs CPU, p99 ${point.p99_ms} ms, ${point.errors} errors`);
    }
  }
  return new Map(
    [...rounds].map(([name, measured]) => {
      const cpu = Math.min(...measured.map((m) => m.server_cpu_us));
      const p99s = measured.map((m) => m.p99_ms).sort((a, b) => a - b);
      return [name, { server_cpu_us: cpu, p99_ms: p99s[0] ?? 0, errors: measured.reduce((s, m) => s + m.errors, 0) }];
    }),
  );
}

/** A counter or gauge of the scrape, summed over its labels (0 when absent). */
async function scraped(url: string, name: string, label = ''): Promise<number> {
  const text = await (await fetch(new URL('metrics', url))).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name) && line.includes(label))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** session-exists under load while the server's first purge runs: windows before it against windows inside it. */
async function purgeUnderLoad(server: BenchServer): Promise<PurgeFigures | null> {
  const { call } = benchCaller(server.url, server.secret);
  const iteration = await prepare('session-exists', call);
  const windows: Array<{ readonly from: number; readonly to: number; readonly latencies: number[] }> = [];
  const began = performance.now();
  let endedAt: number | null = null;
  while (performance.now() - began < PURGE_WAIT_SECONDS * 1000) {
    const from = performance.now();
    const { latencies } = await closedLoop(CLIENTS, WINDOW_SECONDS, iteration);
    windows.push({ from, to: performance.now(), latencies });
    if (endedAt === null && (await scraped(server.url, 'authsvc_purges_total', 'result="ran"')) >= 1) {
      endedAt = performance.now();
      say(`purge done after ${Math.round((endedAt - began) / 1000)} s of load`);
    } else if (endedAt !== null && performance.now() - endedAt > 3 * WINDOW_SECONDS * 1000) break;
  }
  if (endedAt === null) return null;
  const seconds = await scraped(server.url, 'authsvc_purge_last_duration_seconds');
  // The purge ended within the window before the scrape that saw it: [end - duration, end], give or take a window.
  const startedAt = endedAt - WINDOW_SECONDS * 1000 - seconds * 1000;
  const before = windows.filter((w) => w.to < startedAt - 1000 && w.from > began + 10_000).flatMap((w) => w.latencies);
  const during = windows
    .filter((w) => w.from >= startedAt + WINDOW_SECONDS * 1000 && w.to <= endedAt - WINDOW_SECONDS * 1000)
    .flatMap((w) => w.latencies);
  before.sort((a, b) => a - b);
  during.sort((a, b) => a - b);
  return {
    duration_s: Number(seconds.toFixed(1)),
    p99_before_ms: p99(before),
    p99_during_ms: p99(during),
    max_during_ms: Number((during.at(-1) ?? 0).toFixed(2)),
    requests_during: during.length,
  };
}

async function scaleRun(database: BenchDatabase, users: number, options: BenchOptions): Promise<ScaleRun> {
  const prepared = await prepareDatabase(database, 'scale');
  const env = { ...options.serverEnv, AUTHSVC_AUTHDB: prepared.authdb, AUTHSVC_PURGEINTERVAL: '0' };
  try {
    say(`${database}: empty database`);
    let server = await startBenchServer(env);
    const empty = await costs(server, users);
    await server.stop({ keepBasedir: true });
    const reuse = { basedir: server.basedir, secret: server.secret };

    say(`${database}: writing ${users.toLocaleString('en')} users`);
    const parsed = parseDatabaseUrl(prepared.authdb, server.basedir);
    if (!parsed.ok) throw new Error(`bench: cannot open ${prepared.authdb}`);
    const db = openDb(parsed.target, MAINTENANCE_LIMITS);
    const loadStarted = performance.now();
    try {
      await writeScaleData(db.knex, db.dialect, users, Date.now(), say);
      for (const statement of extraInfoIndex(db.dialect)) await db.knex.raw(statement);
    } finally {
      await db.close();
    }
    const loadSeconds = Math.round((performance.now() - loadStarted) / 1000);
    say(`${database}: written in ${loadSeconds} s; measuring at scale`);

    server = await startBenchServer(env, { reuse });
    const full = await costs(server, users);
    await server.stop({ keepBasedir: true });

    say(`${database}: the purge of ${users.toLocaleString('en')} expired sessions under load (it starts after 60 s)`);
    server = await startBenchServer({ ...env, AUTHSVC_PURGEINTERVAL: '1', AUTHSVC_METRICS: '1' }, { reuse });
    const purge = await purgeUnderLoad(server).finally(() => server.stop());
    const rows = [...empty].map(([action, cost]) => ({
      action,
      empty: cost,
      full: full.get(action) ?? { server_cpu_us: 0, p99_ms: 0, errors: -1 },
    }));
    return { database, users, load_seconds: loadSeconds, rows, purge };
  } finally {
    await prepared.drop();
  }
}

function markdown(runs: readonly ScaleRun[]): string {
  const lines = ['# Scale', ''];
  for (const run of runs) {
    lines.push(
      `## ${run.database}: ${run.users.toLocaleString('en')} users (written in ${run.load_seconds} s)`,
      '',
      `| action | CPU µs/request, empty | at ${run.users.toLocaleString('en')} | ratio | p99 ms, empty | at scale | errors |`,
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const row of run.rows) {
      const ratio = row.empty.server_cpu_us > 0 ? (row.full.server_cpu_us / row.empty.server_cpu_us).toFixed(2) : '—';
      lines.push(
        `| ${row.action} | ${row.empty.server_cpu_us} | ${row.full.server_cpu_us} | ${ratio} | ${row.empty.p99_ms} | ${row.full.p99_ms} | ${row.empty.errors + row.full.errors} |`,
      );
    }
    const purge = run.purge;
    lines.push(
      '',
      purge === null
        ? 'The purge did not end within the wait.'
        : `Purge of ${run.users.toLocaleString('en')} expired sessions and the expired keys: ${purge.duration_s} s. ` +
            `session-exists p99 before it ${purge.p99_before_ms} ms, during it ${purge.p99_during_ms} ms ` +
            `(max ${purge.max_during_ms} ms, ${purge.requests_during} requests).`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function runScale(options: BenchOptions, users: number): Promise<void> {
  const runs: ScaleRun[] = [];
  for (const database of options.databases) {
    runs.push(await scaleRun(database, users, options));
    // Written after each database: a run of an hour keeps what it has measured.
    writeFileSync(join(options.outDir, 'scale-latest.json'), `${JSON.stringify(runs, null, 2)}\n`);
    writeFileSync(join(options.outDir, 'scale-latest.md'), markdown(runs));
  }
  process.stdout.write(markdown(runs));
}

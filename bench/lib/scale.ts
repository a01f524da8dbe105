/**
 * `npm run bench -- --scale [N]` (docs/performance.md#a-million-users): on each database, every measured action's
 * server CPU per request and p99 on an empty database and on one of N users (scale-data.ts), two servers measured in
 * turns in the same run, and the purge of the N expired sessions under load: its duration and the p99 of
 * session-exists while it runs against before it starts. One server process each (`--workers 1`), 4 clients.
 * Results go to <out>/scale-latest.{json,md}. With `--instructions`, the two servers run under callgrind and each
 * action's instructions per request are counted instead (<out>/scale-instructions.{json,md}; no purge).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../../src/services/store/open-db.js';
import { MAINTENANCE_LIMITS } from '../../src/services/store/db.js';
import { parseDatabaseUrl } from '../../src/services/store/url.js';
import { BENCH_ACTIONS, benchCaller, HASH_BOUND, prepare, timedCall } from './actions.js';
import type { BenchAction, BenchCall, Iteration } from './actions.js';
import { prepareDatabase } from './databases.js';
import type { BenchDatabase } from './databases.js';
import { closedLoop } from './load.js';
import { measurePoint } from './measure.js';
import type { BenchOptions, ScaleOptions } from './options.js';
import { startCountedServer } from './instructions.js';
import { startBenchServer } from './server.js';
import type { BenchServer } from './server.js';
import { extraInfoIndex, writeScaleData } from './scale-data.js';

const say = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};

const CLIENTS = 4;
const SECONDS = 4;
/** Each action is measured this many times on each server, in turns; the least CPU per request is kept. */
const ROUNDS = 3;
/** Requests of an action on its server under callgrind before any is counted (as `--quick … --instructions`). */
const SCALE_WARMUP = 3000;
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

/** One side's count a request: instructions without V8's compilers, and of those its garbage collector's. */
interface SideCount {
  readonly instructions: number;
  readonly gc: number;
}

/** `--instructions`: each action on the empty database and at scale, or why a side could not be counted. */
interface InstructionRow {
  readonly action: string;
  readonly empty: SideCount | string;
  readonly full: SideCount | string;
}

interface ScaleRun {
  readonly database: BenchDatabase;
  readonly users: number;
  readonly load_seconds: number;
  readonly rows: readonly ScaleRow[];
  readonly instructions: readonly InstructionRow[];
  readonly purge: PurgeFigures | null;
}

const p99 = (sorted: readonly number[]): number =>
  Number((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0).toFixed(2));

/** Every measured action by name, and how to make its iteration on the server behind a call. */
const measured = (users: number): ReadonlyArray<readonly [string, (call: BenchCall) => Promise<Iteration>]> => [
  ...HOT.map((action) => [action, (call: BenchCall) => prepare(action, call)] as const),
  ...lookups(users).map(
    ([name, body]) =>
      [
        name,
        (call: BenchCall) =>
          Promise.resolve(timedCall(call, 'user_id' in body ? 'user-list' : 'user-lookup-match', body)),
      ] as const,
  ),
];

/** Every measured action's iteration on the server behind `call` (fixtures made through the protocol). */
async function iterations(call: BenchCall, users: number): Promise<Array<readonly [string, Iteration]>> {
  const list: Array<readonly [string, Iteration]> = [];
  for (const [name, make] of measured(users)) list.push([name, await make(call)]);
  return list;
}

/**
 * Each iteration on both servers, ROUNDS times: the empty database's and the full one's measured one after the
 * other, in turns (empty first in even rounds, full first in odd ones), so that the machine's drift over minutes
 * falls on both. The least CPU per request of each side, and its better p99.
 */
async function costs(empty: BenchServer, full: BenchServer, users: number): Promise<ScaleRow[]> {
  const sides = [empty, full] as const;
  const lists = await Promise.all(
    sides.map((server) => iterations(benchCaller(server.url, server.secret).call, users)),
  );
  const byName = new Map<string, [Cost[], Cost[]]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, [name]] of (lists[0] ?? []).entries()) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const side of order) {
        const iteration = lists[side]?.[index]?.[1];
        const server = sides[side];
        if (iteration === undefined || server === undefined) throw new Error(`bench: no iteration for ${name}`);
        const point = await measurePoint(iteration, CLIENTS, SECONDS, 1, server.pid);
        const sideCosts = byName.get(name) ?? [[], []];
        sideCosts[side]?.push({ server_cpu_us: point.server_cpu_us, p99_ms: point.p99_ms, errors: point.errors });
        byName.set(name, sideCosts);
        say(`${name}, ${side === 0 ? 'empty' : 'full'}: ${point.server_cpu_us} µs CPU, p99 ${point.p99_ms} ms`);
      }
    }
  }
  const best = (costs: readonly Cost[]): Cost => ({
    server_cpu_us: Math.min(...costs.map((c) => c.server_cpu_us)),
    p99_ms: Math.min(...costs.map((c) => c.p99_ms)),
    errors: costs.reduce((sum, c) => sum + c.errors, 0),
  });
  return [...byName].map(([action, [emptyCosts, fullCosts]]) => ({
    action,
    empty: best(emptyCosts),
    full: best(fullCosts),
  }));
}

/** A server's database and data folder. */
interface Side {
  readonly env: Record<string, string>;
  readonly reuse: { readonly basedir: string; readonly secret: string };
}

/**
 * `--scale N --instructions`: each action's instructions a request on the empty database and at scale, each on a
 * server of its own under callgrind, warmed up by that action alone, as `--quick … --instructions` does. Counting
 * every action on one server, one after another, did not repeat: a request of session-exists measured 487,000,
 * 592,000 and 828,000 instructions in three runs (the collector's share stayed about 1 %; code the actions share being
 * deoptimised and optimised again is the likely cause).
 * The two sides run at once, one on each core: callgrind counts its own process only.
 */
async function instructionCounts(
  sides: readonly [Side, Side],
  users: number,
  requests: number,
): Promise<InstructionRow[]> {
  const rows: InstructionRow[] = [];
  for (const [action, make] of measured(users)) {
    const [empty, full] = await Promise.all(
      sides.map(async (side): Promise<SideCount | string> => {
        const counted = await startCountedServer(side.env, { reuse: side.reuse });
        try {
          const iteration = await make(counted.call);
          await counted.run(iteration, SCALE_WARMUP);
          // Under callgrind a request runs some fifty times slower: one that a budget refuses there (the
          // extra_info search's 2 s) is recorded as refused, not counted.
          const count = await counted.count(iteration, requests).catch((error: unknown) => String(error));
          if (typeof count === 'string') return count;
          return {
            instructions: Math.round((count.total - count.compiler) / requests),
            gc: Math.round(count.gc / requests),
          };
        } finally {
          await counted.stop({ keepBasedir: true });
        }
      }),
    );
    if (empty === undefined || full === undefined) throw new Error('bench: a side was not counted');
    rows.push({ action, empty, full });
    const shown = (side: SideCount | string): string =>
      typeof side === 'string' ? side : `${side.instructions} (GC ${side.gc})`;
    say(`${action}: ${shown(empty)} → ${shown(full)} instructions a request, without the compilers`);
  }
  return rows;
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

async function scaleRun(database: BenchDatabase, scale: ScaleOptions, options: BenchOptions): Promise<ScaleRun> {
  const { users } = scale;
  const emptyDb = await prepareDatabase(database, 'scale_empty');
  const fullDb = await prepareDatabase(database, 'scale_full');
  const envOf = (authdb: string): Record<string, string> => ({
    ...options.serverEnv,
    AUTHSVC_AUTHDB: authdb,
    AUTHSVC_PURGEINTERVAL: '0',
  });
  const dirs: string[] = [];
  try {
    // Each database gets its schema and its seeded accounts from a first start of its own server.
    const first = await Promise.all(
      [emptyDb, fullDb].map((db) =>
        startBenchServer(envOf(db.authdb)).then(async (server) => {
          await server.stop({ keepBasedir: true });
          dirs.push(server.basedir);
          return { basedir: server.basedir, secret: server.secret };
        }),
      ),
    );
    const [emptyReuse, fullReuse] = first;
    if (emptyReuse === undefined || fullReuse === undefined) throw new Error('bench: a server did not start');

    // Both get the operator's extra_info index, so that the data is all that differs; the full one gets the data.
    const opened = (authdb: string, basedir: string): ReturnType<typeof openDb> => {
      const parsed = parseDatabaseUrl(authdb, basedir);
      if (!parsed.ok) throw new Error(`bench: cannot open ${authdb}`);
      return openDb(parsed.target, MAINTENANCE_LIMITS);
    };
    const emptyHandle = opened(emptyDb.authdb, emptyReuse.basedir);
    try {
      for (const statement of extraInfoIndex(emptyHandle.dialect)) await emptyHandle.knex.raw(statement);
    } finally {
      await emptyHandle.close();
    }
    say(`${database}: writing ${users.toLocaleString('en')} users`);
    const db = opened(fullDb.authdb, fullReuse.basedir);
    const loadStarted = performance.now();
    try {
      await writeScaleData(db.knex, db.dialect, users, Date.now(), say);
      for (const statement of extraInfoIndex(db.dialect)) await db.knex.raw(statement);
    } finally {
      await db.close();
    }
    const loadSeconds = Math.round((performance.now() - loadStarted) / 1000);
    say(`${database}: written in ${loadSeconds} s`);

    if (scale.instructions !== null) {
      const counts = await instructionCounts(
        [
          { env: envOf(emptyDb.authdb), reuse: emptyReuse },
          { env: envOf(fullDb.authdb), reuse: fullReuse },
        ],
        users,
        scale.instructions,
      );
      return { database, users, load_seconds: loadSeconds, rows: [], instructions: counts, purge: null };
    }

    say(`${database}: measuring on the empty database and at scale, in turns`);
    const servers = await Promise.all([
      startBenchServer(envOf(emptyDb.authdb), { reuse: emptyReuse }),
      startBenchServer(envOf(fullDb.authdb), { reuse: fullReuse }),
    ]);
    const rows = await costs(...servers, users).finally(() =>
      Promise.all(servers.map((server) => server.stop({ keepBasedir: true }))),
    );

    say(`${database}: the purge of ${users.toLocaleString('en')} expired sessions under load (it starts after 60 s)`);
    const server = await startBenchServer(
      { ...envOf(fullDb.authdb), AUTHSVC_PURGEINTERVAL: '1', AUTHSVC_METRICS: '1' },
      { reuse: fullReuse },
    );
    const purge = await purgeUnderLoad(server).finally(() => server.stop({ keepBasedir: true }));
    return { database, users, load_seconds: loadSeconds, rows, instructions: [], purge };
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await Promise.all([emptyDb.drop(), fullDb.drop()]);
  }
}

function markdown(runs: readonly ScaleRun[]): string {
  const lines = ['# Scale', ''];
  for (const run of runs) {
    const at = run.users.toLocaleString('en');
    lines.push(`## ${run.database}: ${at} users (written in ${run.load_seconds} s)`, '');
    if (run.instructions.length > 0) {
      const cell = (side: SideCount | string): string[] =>
        typeof side === 'string' ? ['not counted', ''] : [String(side.instructions), String(side.gc)];
      const ratio = (row: InstructionRow, less: (side: SideCount) => number): string =>
        typeof row.empty === 'string' || typeof row.full === 'string'
          ? '—'
          : (less(row.full) / less(row.empty)).toFixed(3);
      lines.push(
        "Instructions a request without V8's compilers, and of those its garbage collector's.",
        '',
        `| action | empty | of which GC | at ${at} | of which GC | ratio | ratio without GC |`,
        '|---|---:|---:|---:|---:|---:|---:|',
        ...run.instructions
          .map((row) =>
            [
              row.action,
              ...cell(row.empty),
              ...cell(row.full),
              ratio(row, (side) => side.instructions),
              ratio(row, (side) => side.instructions - side.gc),
            ].join(' | '),
          )
          .map((line) => `| ${line} |`),
        '',
      );
      const refused = run.instructions.flatMap((row) =>
        [row.empty, row.full].filter((side) => typeof side === 'string').map((why) => `${row.action}: ${why}`),
      );
      if (refused.length > 0) lines.push(...refused.map((line) => `- not counted: ${line}`), '');
      continue;
    }
    lines.push(
      `| action | CPU µs/request, empty | at ${at} | ratio | p99 ms, empty | at scale | errors |`,
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
        : `Purge of ${at} expired sessions and the expired keys: ${purge.duration_s} s. ` +
            `session-exists p99 before it ${purge.p99_before_ms} ms, during it ${purge.p99_during_ms} ms ` +
            `(max ${purge.max_during_ms} ms, ${purge.requests_during} requests).`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function runScale(options: BenchOptions, scale: ScaleOptions): Promise<void> {
  const name = scale.instructions === null ? 'scale-latest' : 'scale-instructions';
  const runs: ScaleRun[] = [];
  mkdirSync(options.outDir, { recursive: true });
  for (const database of options.databases) {
    runs.push(await scaleRun(database, scale, options));
    // Written after each database: a run of an hour keeps what it has measured.
    writeFileSync(join(options.outDir, `${name}.json`), `${JSON.stringify(runs, null, 2)}\n`);
    writeFileSync(join(options.outDir, `${name}.md`), markdown(runs));
  }
  process.stdout.write(markdown(runs));
}

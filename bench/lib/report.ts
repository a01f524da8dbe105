/** What a bench run found, as JSON (bench/results/latest.json) and as Markdown tables (latest.md, stdout). */
import type { BenchAction } from './actions.js';
import type { BenchDatabase } from './databases.js';
import type { HashLimit } from './hash-limit.js';
import type { Point } from './measure.js';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  readonly os: string;
  readonly date: string;
  /** 1-minute load average when the run began: other work on the machine skews every figure. */
  readonly loadavg_at_start: number;
}

export interface Startup {
  /** First start on an empty database (migrations, the administrator's password hashed), spawn → GET /health 200. */
  readonly first_start_ms: number;
  /** A restart on that database: spawn → "listening" line, → GET /health 200, and as the server measured itself. */
  readonly restart_listening_ms: number | null;
  readonly restart_healthy_ms: number;
  readonly restart_in_process_ms: number | null;
  /** CPU time (all server processes) of the restart until healthy: steadier than wall time on a busy machine. */
  readonly restart_cpu_ms: number;
}

/** How long the bench leaves a server idle after its last request before reading its memory again. */
export const SETTLE_MS = 2000;

/** RSS in MB of each server process, the first being the process started (the primary with workers). */
export interface Memory {
  readonly first_start_idle_mb: readonly number[];
  readonly idle_mb: readonly number[];
  readonly after_mb?: readonly number[];
  /** The same, once the server has been idle for SETTLE_MS (hash memory goes back a second after the last hash). */
  readonly settled_mb?: readonly number[];
  /** All processes together when idle after a restart, shared pages counted once (summed PSS). */
  readonly idle_pss_mb?: number;
}

export interface ActionPoint extends Point {
  readonly action: BenchAction;
  /** server_cpu_us ÷ the floor's at the same concurrency. */
  readonly floor_ratio: number | null;
  /** server_cpu_us ÷ the floor's with this action's kind of database work (a read, or session-new's write) and a log line. */
  readonly db_floor_ratio: number | null;
  /** For password checks: requests/s ÷ the hash limit. */
  readonly hash_share: number | null;
  /** For password checks: requests/s ÷ what the hashes alone reach with every core verifying at once. */
  readonly parallel_hash_share: number | null;
}

export interface ServerRun {
  readonly database: BenchDatabase;
  readonly workers: number;
  readonly startup: Startup;
  readonly memory: Memory;
  readonly points: readonly ActionPoint[];
}

export interface BenchResults {
  readonly machine: Machine;
  readonly settings: Readonly<Record<string, unknown>>;
  /** The yardstick: the highest of the hash limits measured at the start and the end of the run (judge.ts). */
  readonly hash_limit: HashLimit;
  /** Both measurements: at the start and at the end of the run. */
  readonly hash_limit_measured: readonly HashLimit[];
  readonly floor: {
    readonly memory: Memory;
    /** The yardstick: at each concurrency, the less disturbed of the two measurements below (judge.ts). */
    readonly points: readonly Point[];
    readonly measured: { readonly start: readonly Point[]; readonly end: readonly Point[] };
  };
  /** The floor that also runs session-exists's SQLite read, or session-new's insert, and writes a log line. */
  readonly floor_with_db: {
    readonly read: readonly Point[];
    readonly write: readonly Point[];
    /** The read served through Koa and @koa/router. */
    readonly koa_read: readonly Point[];
  };
  readonly runs: readonly ServerRun[];
  /** Servers only started (no load): start-up and idle memory. */
  readonly footprint: readonly Omit<ServerRun, 'points'>[];
  readonly profiles: readonly string[];
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** "113 MB" for one process; "412 MB (primary 60 + 4 × 88)" for a cluster. */
export function rss(values: readonly number[] | undefined): string {
  if (values === undefined || values.length === 0) return '—';
  if (values.length === 1) return `${values[0] ?? 0} MB`;
  const [primary = 0, ...workers] = values;
  return `${sum(values)} MB (primary ${primary} + workers ${workers.join(' + ')})`;
}

/** "0", or "11 (unavailable 11)". */
const errors = (p: Point): string => {
  const reasons = Object.entries(p.errors_by_reason);
  return reasons.length === 0 ? String(p.errors) : `${p.errors} (${reasons.map(([r, n]) => `${r} ${n}`).join(', ')})`;
};

/** " (all together, shared pages once: 301 MB)" when there are several processes. */
const pss = (memory: Memory): string =>
  memory.idle_pss_mb === undefined || memory.idle_mb.length < 2
    ? ''
    : ` (all together, shared pages counted once: ${memory.idle_pss_mb} MB)`;

const row = (cells: readonly (string | number)[]): string => `| ${cells.join(' | ')} |`;
const pct = (share: number | null): string => (share === null ? '' : `${Math.round(share * 100)} %`);
const ratio = (value: number | null): string => (value === null ? '' : `${value.toFixed(2)}×`);

/** The columns every load table has, after its first: what the load generator saw and the server spent. */
export const LOAD_COLUMNS = ['clients', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'server CPU µs/req'];
export const loadCells = (p: Point): Array<string | number> => [
  p.concurrency,
  p.rps,
  p.p50_ms,
  p.p90_ms,
  p.p99_ms,
  p.max_ms,
  errors(p),
  p.server_cpu_us,
];

/** A table: its header, the alignment line (the first column left, the others right), its rows. */
export const table = (header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string[] => [
  row(header),
  row(header.map((_, i) => (i === 0 ? '---' : '---:'))),
  ...rows.map(row),
];

function pointsTable(points: readonly ActionPoint[]): string[] {
  return table(
    ['action', ...LOAD_COLUMNS, '× floor', '× floor + db', 'hash limit', 'hashes alone', 'client CPU µs/req'],
    points.map((p) => [
      p.action,
      ...loadCells(p),
      ratio(p.floor_ratio),
      ratio(p.db_floor_ratio),
      pct(p.hash_share),
      pct(p.parallel_hash_share),
      p.client_cpu_us,
    ]),
  );
}

function startupLine(run: Omit<ServerRun, 'points'>): string {
  const s = run.startup;
  return (
    `start-up to healthy: first start ${s.first_start_ms} ms, restart ${s.restart_healthy_ms} ms ` +
    `(listening at ${s.restart_listening_ms ?? '?'} ms, ${s.restart_in_process_ms ?? '?'} ms in process; ${s.restart_cpu_ms} ms of CPU)`
  );
}

export function markdown(results: BenchResults): string {
  const m = results.machine;
  const h = results.hash_limit;
  const lines = [
    `# authsvc bench — ${m.date}`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.os}; load average ${m.loadavg_at_start} at start.`,
    `Settings: ${Object.entries(results.settings)
      .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(',') : String(v)}`)
      .join('; ')}.`,
    `Hash limit: one ${h.passhash} verify takes ${h.verifyCpuMs.toFixed(1)} ms of CPU → ` +
      `${h.cores} cores ÷ ${h.verifyCpuMs.toFixed(1)} ms = ${Math.round(h.perSecond)} password checks/s. ` +
      `With ${h.cores} verifies at once the hashes alone reach ${Math.round(h.parallelPerSecond)}/s ` +
      `(${h.parallelVerifyCpuMs.toFixed(1)} ms of CPU each). The best of two measurements, at the start and ` +
      `the end of the run (${results.hash_limit_measured
        .map((m) => `${m.verifyCpuMs.toFixed(1)} ms alone, ${Math.round(m.parallelPerSecond)}/s at once`)
        .join('; ')}).`,
    '',
    '## Floor (bare node:http + Fernet in, fixed reply out)',
    '',
    'The bare floor runs at the start and again at the end of the run; "× floor" divides by the one that ' +
      "took less CPU at the same concurrency. With a database: the floor plus session-exists's SQLite read " +
      "(answered with the row) or session-new's insert, and one JSON log line per request; the last row serves " +
      'the read through Koa and @koa/router (bench/baseline.ts).',
    '',
    ...table(
      ['floor', ...LOAD_COLUMNS, 'client CPU µs/req'],
      (
        [
          ['bare, start of the run', results.floor.measured.start],
          ['bare, end of the run', results.floor.measured.end],
          ['+ db read + log line', results.floor_with_db.read],
          ['+ db write + log line', results.floor_with_db.write],
          ['+ Koa + db read + log line', results.floor_with_db.koa_read],
        ] as const
      ).flatMap(([label, points]) => points.map((p) => [label, ...loadCells(p), p.client_cpu_us])),
    ),
    '',
    `RSS: ${rss(results.floor.memory.idle_mb)} idle, ${rss(results.floor.memory.after_mb)} after.`,
  ];
  for (const run of results.runs) {
    lines.push(
      '',
      `## ${run.database}, --workers ${run.workers}`,
      '',
      ...pointsTable(run.points),
      '',
      `${startupLine(run)}.`,
      `RSS: ${rss(run.memory.idle_mb)} idle after a restart${pss(run.memory)}, ${rss(run.memory.after_mb)} right after the bench, ` +
        `${rss(run.memory.settled_mb)} ${SETTLE_MS / 1000} s later ` +
        `(${rss(run.memory.first_start_idle_mb)} idle after the first start).`,
    );
  }
  if (results.footprint.length > 0) {
    lines.push('', '## Start-up and memory only (no load)', '');
    for (const run of results.footprint) {
      lines.push(
        `- ${run.database}, --workers ${run.workers}: ${startupLine(run)}; ` +
          `RSS ${rss(run.memory.idle_mb)} idle after a restart${pss(run.memory)}, ` +
          `${rss(run.memory.first_start_idle_mb)} after the first start.`,
      );
    }
  }
  lines.push(
    '',
    'user-login: every login needs a fresh session, so its CPU per request includes one session-new; ' +
      'its latency is the login alone. "hash limit" is req/s ÷ the hash limit above; "hashes alone" is req/s ÷ ' +
      'what the hashes alone reached with every core verifying at once.',
  );
  if (results.profiles.length > 0)
    lines.push(`CPU profiles (figures inflated by the profiler): ${results.profiles.length} files in profiles/.`);
  return `${lines.join('\n')}\n`;
}

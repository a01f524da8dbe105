/**
 * `npm run bench -- [flags]`: what to run. Defaults keep a whole run under 5 minutes on 2 cores. `--quick`
 * (and its shorthands `--hot-reads`, `--logins`) measures a few actions on one server instead, without the floors.
 */
import { parseArgs } from 'node:util';
import { BENCH_ACTIONS, isBenchAction } from './actions.js';
import type { BenchAction } from './actions.js';
import type { BenchDatabase } from './databases.js';

export interface BenchOptions {
  readonly databases: readonly BenchDatabase[];
  readonly workers: readonly number[];
  readonly concurrency: readonly number[];
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly actions: readonly BenchAction[];
  /** Worker counts only started, for start-up time and idle memory (no load). */
  readonly footprint: readonly number[];
  readonly cpuProf: boolean;
  /** Extra server environment, e.g. AUTHSVC_RATELIMITS=… to measure with rate limits on. */
  readonly serverEnv: Readonly<Record<string, string>>;
  readonly outDir: string;
  /** Servers from src/ through tsx instead of dist/ (the bench's own test; figures not comparable). */
  readonly fromSource: boolean;
  /** A quick measure of a few actions on one server (lib/quick.ts) instead of the whole run; null for the whole run. */
  readonly quick: QuickOptions | null;
  /** `--scale N`: the scale run (lib/scale.ts) instead of the whole run; null otherwise. */
  readonly scale: ScaleOptions | null;
}

export interface ScaleOptions {
  /** The users of the full database. */
  readonly users: number;
  /** `--instructions`: count each action's instructions under callgrind (this many requests) instead of load. */
  readonly instructions: number | null;
}

export interface QuickOptions {
  readonly actions: readonly BenchAction[];
  /** Every action measured this many times, interleaved; the least CPU per request is reported. */
  readonly rounds: number;
  /** Also replay one sealed request with wrk (read-only actions only: a replayed state change is refused). */
  readonly wrk: boolean;
  /** Another build's entry file instead of this package's `authsvc` command (A/B against a baseline). */
  readonly script: string | undefined;
  /** Arguments for the server's node, e.g. --cpu-prof (NODE_OPTIONS refuses it). */
  readonly nodeArgs: readonly string[];
  /** Count instructions under callgrind instead of measuring load (lib/instructions.ts): the requests counted, or null. */
  readonly instructions: number | null;
}

/** The actions `--hot-reads` measures: the cheapest reads, where authsvc's own overhead shows most. */
export const HOT_READS: readonly BenchAction[] = ['session-exists', 'user-check-access', 'apikey-verify-nosession'];

export const USAGE = `npm run bench -- [flags]     (run nothing else heavy meanwhile: the figures are the machine's)
  --db sqlite[,pg,mysql]      databases (pg: AUTHSVC_BENCH_PGURL or AUTHSVC_TEST_PGURL; mysql: …_MYSQLURL)  [sqlite]
  --workers 1,2               server worker counts driven under load                            [1,2; quick: 1]
  --concurrency 16,64         concurrent clients (closed loop)                    [16,64; quick: 16; logins: 8]
  --duration 3                measured seconds per action and concurrency        [3; quick: 10; hot reads: 8]
  --warmup 1                  warm-up seconds before each measured window                                  [1]
  --actions a,b               a subset of: ${BENCH_ACTIONS.join(', ')}
  --footprint 4               worker counts only started, for start-up and idle memory ("none": skip)      [4]
  --cpu-prof                  servers run with --cpu-prof; profiles cut to each measured window in <out>/profiles
  --set NAME=value            server environment (AUTHSVC_* or NODE_OPTIONS), e.g. --set AUTHSVC_RATELIMITS=…
                              (rate limits and login back-off are off unless set)
  --out bench/results         where latest.json and latest.md go (a quick run writes only profiles there)
  --from-source               run authsvc from src/ through tsx, not dist/ (tests; its figures are not comparable)
A quick run: a few actions on one server per database and worker count, no floors, nothing written but profiles:
  --quick a,b                 these actions (the list above), e.g. --quick session-exists
  --hot-reads                 the same as --quick ${HOT_READS.join(',')}
  --logins                    the same as --quick user-login (each login opens its session first, untimed)
  --rounds 1                  measure every action N times, interleaved; report the least CPU per request
  --wrk                       also replay one sealed request with wrk, when installed (read-only actions)
  --server FILE               another build's entry file instead of this package's authsvc (A/B)
  --node-arg ARG              an argument for the server's node (repeatable), e.g. --node-arg=--cpu-prof
  --instructions              count each request's CPU instructions under valgrind's callgrind instead of load:
                              repeatable within ~1 % on a noisy machine, for A/B with --server (minutes per action)
  --requests 300              with --instructions: requests counted per action, after 3,000 to warm up    [300]
A scale run (--db picks the databases; 4 clients; ~12 minutes a database at a million):
  --scale [N]                 each action's CPU per request and p99 on an empty database and on one of N users
                              (2N sessions, half expired; keys and refresh tokens at N/10), a server on each,
                              measured in turns; then the purge of the expired ones under load; writes
                              <out>/scale-latest.{json,md}                                             [1000000]
  --instructions              with --scale: count each action's instructions under callgrind on both databases
                              (--requests each, after 3,000 to warm up; a server per action) instead of load; writes
                              <out>/scale-instructions.{json,md}`;

const list = (text: string): string[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

function numbers(flag: string, text: string): number[] {
  const values = list(text).map(Number);
  if (values.length === 0 || values.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`--${flag} takes positive integers separated by commas, not "${text}"`);
  return values;
}

function positive(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${flag} takes a positive number of seconds`);
  return value;
}

/** The users `--scale` builds when it is given no number. */
export const SCALE_DEFAULT = 1_000_000;

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  // `--scale` alone means the default: parseArgs has no optional values.
  const args = argv.flatMap((arg, i) =>
    arg === '--scale' && (argv[i + 1] === undefined || argv[i + 1]?.startsWith('--') === true)
      ? [arg, String(SCALE_DEFAULT)]
      : [arg],
  );
  const { values } = parseArgs({
    args,
    options: {
      db: { type: 'string', default: 'sqlite' },
      // No defaults here: a quick run has its own (quickDefaults).
      workers: { type: 'string' },
      concurrency: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string', default: '1' },
      actions: { type: 'string' },
      footprint: { type: 'string', default: '4' },
      'cpu-prof': { type: 'boolean', default: false },
      set: { type: 'string', multiple: true, default: [] },
      out: { type: 'string', default: 'bench/results' },
      'from-source': { type: 'boolean', default: false },
      quick: { type: 'string' },
      'hot-reads': { type: 'boolean', default: false },
      logins: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '1' },
      wrk: { type: 'boolean', default: false },
      server: { type: 'string' },
      'node-arg': { type: 'string', multiple: true, default: [] },
      instructions: { type: 'boolean', default: false },
      requests: { type: 'string', default: '300' },
      scale: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const databases = list(values.db);
  for (const db of databases)
    if (db !== 'sqlite' && db !== 'pg' && db !== 'mysql') throw new Error(`--db: unknown database "${db}"`);
  const modes = [values.quick !== undefined, values['hot-reads'], values.logins].filter(Boolean).length;
  if (modes > 1) throw new Error('choose one of --quick, --hot-reads and --logins');
  const quickActions =
    values.quick !== undefined
      ? list(values.quick)
      : values['hot-reads']
        ? [...HOT_READS]
        : values.logins
          ? ['user-login']
          : null;
  if (quickActions !== null && values.actions !== undefined)
    throw new Error('--actions is for the whole run; a quick run takes its actions from --quick');
  if (
    quickActions === null &&
    (values.wrk ||
      values.server !== undefined ||
      values['node-arg'].length > 0 ||
      values.rounds !== '1' ||
      (values.instructions && values.scale === undefined))
  )
    throw new Error(
      '--rounds, --wrk, --server, --node-arg and --instructions go with --quick, --hot-reads or --logins ' +
        '(--instructions also with --scale)',
    );
  if (values.instructions && values.wrk) throw new Error('--instructions counts; --wrk measures load: choose one');
  const actions = quickActions ?? list(values.actions ?? BENCH_ACTIONS.join(','));
  const flag = quickActions === null ? 'actions' : 'quick';
  if (actions.length === 0) throw new Error(`--${flag} names no action`);
  for (const action of actions) if (!isBenchAction(action)) throw new Error(`--${flag}: unknown action "${action}"`);
  const defaults =
    quickActions === null
      ? { workers: '1,2', concurrency: '16,64', duration: '3' }
      : { workers: '1', concurrency: values.logins ? '8' : '16', duration: values['hot-reads'] ? '8' : '10' };
  const serverEnv: Record<string, string> = {};
  for (const pair of values.set) {
    const at = pair.indexOf('=');
    if (at < 1 || !(pair.startsWith('AUTHSVC_') || pair.startsWith('NODE_OPTIONS=')))
      throw new Error(`--set takes AUTHSVC_NAME=value or NODE_OPTIONS=…, not "${pair}"`);
    serverEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const requests = values.instructions ? (numbers('requests', values.requests)[0] ?? 300) : null;
  const scale =
    values.scale === undefined
      ? null
      : { users: numbers('scale', values.scale)[0] ?? SCALE_DEFAULT, instructions: requests };
  if (scale !== null && quickActions !== null) throw new Error('--scale is a run of its own: no --quick with it');
  return {
    scale,
    databases: databases as BenchDatabase[],
    workers: numbers('workers', values.workers ?? defaults.workers),
    concurrency: numbers('concurrency', values.concurrency ?? defaults.concurrency),
    seconds: positive('duration', values.duration ?? defaults.duration),
    warmupSeconds: values.warmup === '0' ? 0 : positive('warmup', values.warmup),
    actions: actions as BenchAction[],
    footprint: values.footprint === 'none' ? [] : numbers('footprint', values.footprint),
    cpuProf: values['cpu-prof'],
    serverEnv,
    outDir: values.out,
    fromSource: values['from-source'],
    quick:
      quickActions === null
        ? null
        : {
            actions: actions as BenchAction[],
            rounds: numbers('rounds', values.rounds)[0] ?? 1,
            wrk: values.wrk,
            script: values.server,
            nodeArgs: values['node-arg'],
            instructions: requests,
          },
  };
}

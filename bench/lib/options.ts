/** `npm run bench -- [flags]`: what to run. Defaults keep a whole run under 5 minutes on 2 cores. */
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
}

export const USAGE = `npm run bench -- [flags]     (run it under: flock /work/bench.lock npm run bench -- …)
  --db sqlite[,pg,mysql]      databases (pg: AUTHSVC_BENCH_PGURL or AUTHSVC_TEST_PGURL; mysql: …_MYSQLURL)  [sqlite]
  --workers 1,2               server worker counts driven under load                                     [1,2]
  --concurrency 16,64         concurrent clients (closed loop)                                             [16,64]
  --duration 3                measured seconds per action and concurrency                                  [3]
  --warmup 1                  warm-up seconds before each measured window                                  [1]
  --actions a,b               a subset of: ${BENCH_ACTIONS.join(', ')}
  --footprint 4               worker counts only started, for start-up and idle memory ("none": skip)      [4]
  --cpu-prof                  servers run with --cpu-prof; profiles cut to each measured window in <out>/profiles
  --set NAME=value            server environment (AUTHSVC_* or NODE_OPTIONS), e.g. --set AUTHSVC_RATELIMITS=…
                              (rate limits and login back-off are off unless set)
  --out bench/results         where latest.json and latest.md go
  --from-source               run authsvc from src/ through tsx, not dist/ (tests; its figures are not comparable)`;

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

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      db: { type: 'string', default: 'sqlite' },
      workers: { type: 'string', default: '1,2' },
      concurrency: { type: 'string', default: '16,64' },
      duration: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '1' },
      actions: { type: 'string', default: BENCH_ACTIONS.join(',') },
      footprint: { type: 'string', default: '4' },
      'cpu-prof': { type: 'boolean', default: false },
      set: { type: 'string', multiple: true, default: [] },
      out: { type: 'string', default: 'bench/results' },
      'from-source': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const databases = list(values.db);
  for (const db of databases)
    if (db !== 'sqlite' && db !== 'pg' && db !== 'mysql') throw new Error(`--db: unknown database "${db}"`);
  const actions = list(values.actions);
  for (const action of actions) if (!isBenchAction(action)) throw new Error(`--actions: unknown action "${action}"`);
  const serverEnv: Record<string, string> = {};
  for (const pair of values.set) {
    const at = pair.indexOf('=');
    if (at < 1 || !(pair.startsWith('AUTHSVC_') || pair.startsWith('NODE_OPTIONS=')))
      throw new Error(`--set takes AUTHSVC_NAME=value or NODE_OPTIONS=…, not "${pair}"`);
    serverEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    databases: databases as BenchDatabase[],
    workers: numbers('workers', values.workers),
    concurrency: numbers('concurrency', values.concurrency),
    seconds: positive('duration', values.duration),
    warmupSeconds: values.warmup === '0' ? 0 : positive('warmup', values.warmup),
    actions: actions as BenchAction[],
    footprint: values.footprint === 'none' ? [] : numbers('footprint', values.footprint),
    cpuProf: values['cpu-prof'],
    serverEnv,
    outDir: values.out,
    fromSource: values['from-source'],
  };
}

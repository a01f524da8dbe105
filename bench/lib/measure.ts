/** One measured point: an iteration driven closed-loop, and what the server processes spent on it. */
import type { Iteration } from './actions.js';
import { closedLoop } from './load.js';
import { monotonicUs } from './profile.js';
import { processTreeCpuSeconds } from './server.js';

export interface Point {
  readonly concurrency: number;
  readonly requests: number;
  readonly errors: number;
  /** The errors by failure_reason (or the client's error kind, e.g. `unavailable` for a 503). */
  readonly errors_by_reason: Readonly<Record<string, number>>;
  readonly rps: number;
  readonly p50_ms: number;
  readonly p90_ms: number;
  readonly p99_ms: number;
  readonly max_ms: number;
  /** CPU time of the server's processes (user + system, from /proc) per request, in µs. */
  readonly server_cpu_us: number;
  /** The same for this load generator, which shares the machine's cores. */
  readonly client_cpu_us: number;
  /** The measured window on the monotonic clock (for cutting profiles). */
  readonly window_us: readonly [number, number];
}

const ms = (sorted: readonly number[], p: number): number =>
  Number((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(2));

/** Warms up for `warmupSeconds`, then measures `seconds` of `iteration` at `concurrency` against the server `pid`. */
export async function measurePoint(
  iteration: Iteration,
  concurrency: number,
  seconds: number,
  warmupSeconds: number,
  pid: number,
): Promise<Point> {
  if (warmupSeconds > 0) await closedLoop(concurrency, warmupSeconds, iteration);
  const cpu0 = processTreeCpuSeconds(pid);
  const client0 = process.cpuUsage();
  const from = monotonicUs();
  const { latencies, failures, failureReasons } = await closedLoop(concurrency, seconds, iteration);
  const to = monotonicUs();
  const cpu = processTreeCpuSeconds(pid) - cpu0;
  const client = process.cpuUsage(client0);
  const requests = Math.max(1, latencies.length);
  return {
    concurrency,
    requests: latencies.length,
    errors: failures,
    errors_by_reason: failureReasons,
    rps: Math.round(latencies.length / ((to - from) / 1e6)),
    p50_ms: ms(latencies, 0.5),
    p90_ms: ms(latencies, 0.9),
    p99_ms: ms(latencies, 0.99),
    max_ms: ms(latencies, 1),
    server_cpu_us: Math.round((cpu * 1e6) / requests),
    client_cpu_us: Math.round((client.user + client.system) / requests),
    window_us: [from, to],
  };
}

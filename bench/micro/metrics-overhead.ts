/**
 * The CPU the metrics add to one request, measured in isolation: the counting step (classification,
 * one counter increment, one histogram observation) run on request states like the pipeline leaves
 * them, against the same step without counting. Compare the result with "server CPU µs/req"
 * of `npm run bench -- --hot-reads`, whose run-to-run noise on a shared machine is larger than this cost.
 *   npx tsx bench/micro/metrics-overhead.ts [iterations=500000]
 */
import { countRequests } from '../../src/http/metrics.js';
import type { PipelineContext, Step } from '../../src/http/state.js';
import { createServiceMetrics } from '../../src/services/metrics/prometheus.js';

const iterations = Number(process.argv[2] ?? 500_000);
const metrics = createServiceMetrics({ hashes: { running: 0, waiting: 0 } });
const counting = countRequests(metrics);
const bare: Step = async (_ctx, next) => {
  const started = performance.now();
  await next();
  if (started < 0) throw new Error('unreachable');
};
const next = (): Promise<void> => Promise.resolve();

/** States as the pipeline leaves them: the two hot reads succeeding or failing, and a refusal. */
const contexts = [
  { action: 'session-exists', code: null, status: 200 },
  { action: 'user-check-access', code: null, status: 200 },
  { action: 'session-exists', code: 'session_not_found', status: 200 },
  { action: 'user-check-access', code: 'denied', status: 200 },
].map(
  ({ action, code, status }) =>
    ({
      path: '/',
      method: 'POST',
      status,
      state: { request: { action }, reply: { code }, log: { action, success: code === null } },
    }) as unknown as PipelineContext,
);

async function cpuMicros(step: Step): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await step(contexts[i % contexts.length] as PipelineContext, next);
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

// Warm up both, then alternate the measurements.
await cpuMicros(bare);
await cpuMicros(counting);
const rows: Array<{ run: number; bare_ns: number; counting_ns: number; added_ns: number }> = [];
for (let run = 1; run <= 3; run++) {
  const bareNs = ((await cpuMicros(bare)) * 1000) / iterations;
  const countingNs = ((await cpuMicros(counting)) * 1000) / iterations;
  rows.push({
    run,
    bare_ns: Math.round(bareNs),
    counting_ns: Math.round(countingNs),
    added_ns: Math.round(countingNs - bareNs),
  });
}
console.table(rows);
console.log(JSON.stringify({ iterations, rows }));

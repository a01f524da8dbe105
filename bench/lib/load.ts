/** The closed load loop every bench drives: N clients, each sending its next request when the last is answered. */

export interface LoopResult {
  /** Latencies in ms, sorted. */
  readonly latencies: number[];
  readonly failures: number;
}

/**
 * Runs `concurrency` clients calling `once` until `seconds` have passed. `once` answers whether its reply
 * was a success and, when only part of its work is to be timed, when that part started (performance.now()).
 */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  once: () => Promise<boolean | { readonly ok: boolean; readonly startedAt: number }>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const outcome = await once();
        const { ok, startedAt } = typeof outcome === 'boolean' ? { ok: outcome, startedAt: t0 } : outcome;
        latencies.push(performance.now() - startedAt);
        if (!ok) failures++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { latencies, failures };
}

/** The closed load loop every bench drives: N clients, each sending its next request when the last is answered. */

export interface LoopResult {
  /** Latencies in ms, sorted. */
  readonly latencies: number[];
  readonly failures: number;
  /** Failures by the reason an iteration gave (when it gave one). */
  readonly failureReasons: Readonly<Record<string, number>>;
}

/**
 * Runs `concurrency` clients calling `once` until `seconds` have passed. `once` answers whether its reply
 * was a success and, when only part of its work is to be timed, when that part started (performance.now()).
 */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  once: () => Promise<boolean | { readonly ok: boolean; readonly startedAt: number; readonly failure?: string }>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  let failures = 0;
  const failureReasons: Record<string, number> = {};
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const outcome = await once();
        const { ok, startedAt, failure } =
          typeof outcome === 'boolean' ? { ok: outcome, startedAt: t0, failure: undefined } : outcome;
        latencies.push(performance.now() - startedAt);
        if (!ok) failures++;
        if (!ok && failure !== undefined) failureReasons[failure] = (failureReasons[failure] ?? 0) + 1;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { latencies, failures, failureReasons };
}

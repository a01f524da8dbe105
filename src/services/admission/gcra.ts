/**
 * The generic cell rate algorithm (docs/design.md#gcra-buckets). A bucket passes `burst` requests back to back
 * when fresh, then one per `60 / perMinute` seconds. Its whole state is one number, the theoretical
 * arrival time (TAT): a request at `now` passes iff `now ≥ TAT − τ`, and then TAT = max(TAT, now) + T,
 * with T the emission interval and τ = (burst − 1)·T. A bucket whose TAT ≤ now is the same as a fresh
 * one, so stores may forget it.
 *
 * Times are whole microseconds so that the memory store and the Redis Lua script (doubles, printed
 * with `%.0f`) compute bit-identical answers: epoch µs (≈ 1.8e15) and τ (≤ 1e7 · 6e7 µs) stay below 2^53.
 */

export interface Bucket {
  /** Bounded-length key (see buckets.ts); also names the bucket in a refusal. */
  readonly key: string;
  readonly perMinute: number;
  readonly burst: number;
}

export interface Cell {
  /** Emission interval T, µs (rounded up: the sustained rate never exceeds the configured one). */
  readonly intervalUs: number;
  /** Tolerance τ = (burst − 1)·T, µs. */
  readonly toleranceUs: number;
}

export function cellOf(bucket: Bucket): Cell {
  const intervalUs = Math.ceil(60_000_000 / bucket.perMinute);
  return { intervalUs, toleranceUs: (Math.max(1, bucket.burst) - 1) * intervalUs };
}

export const toMicros = (ms: number): number => Math.floor(ms * 1000);

export type Decision =
  | { readonly ok: true; readonly tats: readonly number[] }
  | { readonly ok: false; readonly waitUs: number; readonly index: number };

/**
 * All buckets at once: passes only if every bucket passes, and then returns every new TAT; otherwise
 * the longest wait and which bucket imposes it, and the caller stores nothing (a refusal consumes nothing).
 * `tats[i]` is bucket i's stored TAT, or undefined when fresh.
 */
export function decide(buckets: readonly Bucket[], tats: readonly (number | undefined)[], nowUs: number): Decision {
  const next: number[] = [];
  let waitUs = 0;
  let index = -1;
  buckets.forEach((bucket, i) => {
    const cell = cellOf(bucket);
    const tat = Math.max(tats[i] ?? nowUs, nowUs);
    const wait = tat - cell.toleranceUs - nowUs;
    if (wait > waitUs) [waitUs, index] = [wait, i];
    next.push(tat + cell.intervalUs);
  });
  return index < 0 ? { ok: true, tats: next } : { ok: false, waitUs, index };
}

/** `Retry-After`: the real wait in whole seconds, at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

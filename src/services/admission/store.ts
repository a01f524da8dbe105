/**
 * The admission store port: one call per request checks the replay cache and every rate bucket, all or
 * nothing, and the login back-off is counted beside them. Implementations: memory (one process), the
 * cluster primary (workers), Redis (instances), and a fallback wrapper (Redis, else the local store).
 */
import type { Bucket } from './gcra.js';
import type { Clock, LoginBackoff, Sleep } from '../../domain/ports.js';
import { backoffKey } from './buckets.js';

export interface ReplayEntry {
  /** A compact digest of the request token (see replayKey in replay.ts). */
  readonly key: string;
  /** When the token stops being accepted anyway; the entry may be forgotten then. */
  readonly expiresAtMs: number;
}

export type Admission =
  | { readonly kind: 'ok' }
  /** Refused with 429; nothing was consumed and the replay key was not recorded. */
  | { readonly kind: 'rate-limited'; readonly retryAfterMs: number; readonly bucket: Bucket }
  /** The token was seen before; no rate was consumed. */
  | { readonly kind: 'replayed' }
  /**
   * The replay set cannot be consulted (Redis is configured but not answering): refused with 503,
   * nothing consumed or recorded (docs/design.md#replay-during-a-redis-outage).
   */
  | { readonly kind: 'unavailable' };

export interface AdmissionStore {
  admit(buckets: readonly Bucket[], replay: ReplayEntry | undefined, nowMs: number): Promise<Admission>;
  /** Counts a failed password check for the key (see backoffKey) and returns the consecutive count n. */
  failure(emailKey: string, nowMs: number): Promise<number>;
  /** A successful check ends the run of failures. */
  success(emailKey: string): Promise<void>;
  /** The wait owed by the current run of failures, in ms (0 when there is none). */
  waitFor(emailKey: string, nowMs: number): Promise<number>;
}

export type AdmissionStatus = 'ok' | 'down' | 'unused';

/** How long a run of failures is remembered after the last one: the default lock time (`userlocktime`). */
export const BACKOFF_MEMORY_MS = 3_600_000;

/**
 * docs/design.md#lock-out-and-login-back-off, as the reference: the n-th consecutive failure waits min(1.5^(n−1), 40)
 * s.
 */
export function backoffWaitMs(n: number): number {
  return n < 1 ? 0 : Math.round(Math.min(1.5 ** (n - 1), 40) * 1000);
}

/** The refusal answer for bucket `index` of a decision, converted from µs. */
export function rateLimited(buckets: readonly Bucket[], index: number, waitUs: number): Admission {
  const bucket = buckets[index];
  if (bucket === undefined) throw new Error(`no bucket ${index}`);
  return { kind: 'rate-limited', retryAfterMs: Math.ceil(waitUs / 1000), bucket };
}

/**
 * The login back-off on the admission store (docs/design.md#lock-out-and-login-back-off): the n-th consecutive failed
 * password check for an identity waits min(1.5^(n−1), 40) s, counted in the same store as the rate limits so it
 * holds across workers and instances. The wait is a timer (`sleep`), so no worker is held busy.
 */
export function storeLoginBackoff(store: AdmissionStore, clock: Clock, sleep: Sleep): LoginBackoff {
  return {
    async failed(identity) {
      const n = await store.failure(backoffKey(identity), clock.now());
      const waitMs = backoffWaitMs(n);
      if (waitMs > 0) await sleep(waitMs);
    },
    succeeded: (identity) => store.success(backoffKey(identity)),
  };
}

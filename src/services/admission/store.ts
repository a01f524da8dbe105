/**
 * The admission store port: one call per request checks the replay cache and every rate bucket, all or
 * nothing, and the login back-off is counted beside them. Implementations: memory (one process), the
 * cluster primary (workers), Redis (instances), and the fallback wrapper (Redis, else the local store;
 * below).
 */
import type { Clock, LoginBackoff, Sleep } from '../../domain/ports.js';
import type { Logger } from '../../log/logger.js';
import { backoffKey } from './buckets.js';
import type { Bucket } from './buckets.js';

export interface ReplayEntry {
  /** A compact digest of the request token (see replayKey in memory-store.ts). */
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

/**
 * Redis when it answers, else the instance's own exact store (the cluster primary with workers, memory
 * with one) for what that store can decide alone: rate limits and the login back-off (docs/design.md#gcra-buckets).
 * Replay is the exception (docs/design.md#replay-during-a-redis-outage): while Redis is configured but
 * not answering, an admission that carries a replay entry is answered `unavailable` (503) and recorded
 * nowhere, because no local set knows what other instances, or this one before the outage, accepted;
 * and since nothing is accepted meanwhile, nothing needs carrying back to Redis. The outage is logged
 * once at warn; while it lasts Redis is probed every `probeMs` in the background (requests never wait on
 * a dead Redis), and the first answer switches back, logged at info. Limits restart from the local
 * store's view, which errs towards letting clients through.
 */

export interface RemoteStore extends AdmissionStore {
  /** `host:port` of the server, for messages: never the URL, which may hold a password. */
  readonly address: string;
  /** Resolves when Redis answers; a probe that is not answered also gets the store a fresh connection. */
  ping(): Promise<void>;
}

export interface FallbackStore extends AdmissionStore {
  status(): AdmissionStatus;
  /** Stops the probe timer. */
  close(): void;
}

export const REDIS_DOWN_MESSAGE =
  'redis unavailable: state-changing requests are refused (503) and rate limits are on the local store until it answers';

const UNAVAILABLE: Admission = { kind: 'unavailable' };

export function fallbackStore(
  remote: RemoteStore | null,
  local: AdmissionStore,
  logger: Logger,
  options: { probeMs?: number; onFallback?: () => void } = {},
): FallbackStore {
  let down = false;
  let probe: NodeJS.Timeout | undefined;
  const probeMs = options.probeMs ?? 1000;

  const recover = (): void => {
    if (remote === null) return;
    remote.ping().then(
      () => {
        if (!down) return;
        down = false;
        clearInterval(probe);
        probe = undefined;
        logger.info('redis answers again: admission back on redis, state-changing requests accepted again');
      },
      () => undefined,
    );
  };

  const markDown = (error: unknown): void => {
    if (down) return;
    down = true;
    // The address first: the library's message ("Connection is closed.") does not say which Redis.
    logger.warn(REDIS_DOWN_MESSAGE, {
      redis: remote?.address ?? null,
      cause: error instanceof Error ? error.message : String(error),
    });
    probe = setInterval(recover, probeMs);
    probe.unref();
    options.onFallback?.();
  };

  /** `unanswered`, when given, is the answer while Redis does not answer: the local store cannot decide the call. */
  async function use<T>(call: (store: AdmissionStore) => Promise<T>, unanswered?: T): Promise<T> {
    if (remote === null) return call(local);
    if (down) return unanswered ?? call(local);
    try {
      return await call(remote);
    } catch (error) {
      // Redis may have run the call before its answer was lost: refusing stays safe either way.
      markDown(error);
      return unanswered ?? call(local);
    }
  }

  return {
    admit: (buckets: readonly Bucket[], replay: ReplayEntry | undefined, nowMs: number) =>
      use((s) => s.admit(buckets, replay, nowMs), replay === undefined ? undefined : UNAVAILABLE),
    failure: (emailKey, nowMs) => use((s) => s.failure(emailKey, nowMs)),
    success: (emailKey) => use((s) => s.success(emailKey)),
    waitFor: (emailKey, nowMs) => use((s) => s.waitFor(emailKey, nowMs)),
    status: () => (remote === null ? 'unused' : down ? 'down' : 'ok'),
    close: () => clearInterval(probe),
  };
}

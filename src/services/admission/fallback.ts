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
import type { Logger } from '../../log/logger.js';
import type { Bucket } from './gcra.js';
import type { Admission, AdmissionStatus, AdmissionStore, ReplayEntry } from './store.js';

export interface RemoteStore extends AdmissionStore {
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
    logger.warn(REDIS_DOWN_MESSAGE, {
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

/**
 * Redis when it answers, else the instance's own exact store (the cluster primary with workers, memory
 * with one), so a Redis outage never stops the server (DESIGN decision 20). The outage is logged once at
 * warn; while it lasts Redis is probed every `probeMs` in the background (requests never wait on a dead
 * Redis), and the first answer switches back, logged at info. State is not copied either way: limits
 * restart from the local store's view, which errs towards letting clients through.
 */
import type { Logger } from '../log/logger.js';
import type { Bucket } from './gcra.js';
import type { AdmissionStatus, AdmissionStore, ReplayEntry } from './store.js';

export interface RemoteStore extends AdmissionStore {
  ping(): Promise<void>;
}

export interface FallbackStore extends AdmissionStore {
  status(): AdmissionStatus;
  /** Stops the probe timer. */
  close(): void;
}

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
        logger.info('redis answers again: admission back on redis');
      },
      () => undefined,
    );
  };

  const markDown = (error: unknown): void => {
    if (down) return;
    down = true;
    logger.warn('redis unavailable: admission on the local store until it answers', {
      cause: error instanceof Error ? error.message : String(error),
    });
    probe = setInterval(recover, probeMs);
    probe.unref();
    options.onFallback?.();
  };

  async function use<T>(call: (store: AdmissionStore) => Promise<T>): Promise<T> {
    if (remote === null || down) return call(local);
    try {
      return await call(remote);
    } catch (error) {
      markDown(error);
      return call(local);
    }
  }

  return {
    admit: (buckets: readonly Bucket[], replay: ReplayEntry | undefined, nowMs: number) =>
      use((s) => s.admit(buckets, replay, nowMs)),
    failure: (emailKey, nowMs) => use((s) => s.failure(emailKey, nowMs)),
    success: (emailKey) => use((s) => s.success(emailKey)),
    waitFor: (emailKey, nowMs) => use((s) => s.waitFor(emailKey, nowMs)),
    status: () => (remote === null ? 'unused' : down ? 'down' : 'ok'),
    close: () => clearInterval(probe),
  };
}

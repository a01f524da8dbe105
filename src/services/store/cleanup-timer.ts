/**
 * The hourly purge of expired sessions, keys and refresh tokens (docs/design.md#sessions-and-the-purge), run by the
 * single process or by the cluster primary, never by the workers. Several instances over one
 * PostgreSQL or MariaDB database take turns through an advisory lock (src/services/store/cleanup.ts). What is
 * expired is decided by the injected clock; only the timer itself is real time.
 */
import type { Clock } from '../../domain/ports.js';
import type { Logger } from '../../log/logger.js';
import type { Store } from './index.js';

export const CLEANUP_INTERVAL_MS = 3_600_000;
/** The first purge comes soon after start, so an instance restarted often still purges. */
export const FIRST_CLEANUP_AFTER_MS = 60_000;

export interface CleanupTimer {
  /** Runs one purge now (the timer's work; tests call it). */
  runOnce(): Promise<void>;
  stop(): void;
}

export function startCleanup(
  store: Pick<Store, 'purgeExpired'>,
  clock: Clock,
  log: Logger,
  intervalMs = CLEANUP_INTERVAL_MS,
): CleanupTimer {
  let running: Promise<void> | null = null;
  const runOnce = (): Promise<void> =>
    (running ??= store
      .purgeExpired(clock.now())
      .then(
        (report) => {
          if (!report.ran) log.info('purge skipped: another instance is purging');
          else log.info('purged expired rows', { deleted: report.deleted });
        },
        (error: unknown) => {
          log.warn('purge failed; next try at the next interval', {
            error: error instanceof Error ? error.message : String(error),
          });
        },
      )
      .finally(() => {
        running = null;
      }));
  let interval: NodeJS.Timeout | null = null;
  const first = setTimeout(
    () => {
      void runOnce();
      interval = setInterval(() => void runOnce(), intervalMs);
      interval.unref();
    },
    Math.min(FIRST_CLEANUP_AFTER_MS, intervalMs),
  );
  first.unref();
  return {
    runOnce,
    stop() {
      clearTimeout(first);
      if (interval !== null) clearInterval(interval);
    },
  };
}

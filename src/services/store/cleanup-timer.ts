/**
 * The purge of expired sessions, keys, refresh tokens, tickets, challenges and security events
 * (docs/design.md#sessions-and-the-purge), every `purgeinterval` minutes, run by the single process or by the cluster
 * primary, never by the workers. Several instances over one PostgreSQL or MariaDB database take turns through an
 * advisory lock (src/services/store/cleanup.ts). What is expired is decided by the injected clock; only the timer
 * itself and the duration it logs are real time.
 */
import type { Clock } from '../../domain/ports.js';
import type { PurgeObserver } from '../../domain/purge.js';
import type { Logger } from '../../log/logger.js';
import type { Store } from './index.js';

/** The first purge comes soon after start, so an instance restarted often still purges. */
export const FIRST_CLEANUP_AFTER_MS = 60_000;
/** A long purge logs its progress each time a table's count passes this many batches more. */
const BATCHES_A_PROGRESS_LINE = 100;

export interface PurgeSettings {
  /** Minutes between two purges; 0: this instance never purges on its own. */
  readonly intervalMinutes: number;
  /** Rows one statement deletes. */
  readonly batch: number;
}

export interface CleanupTimer {
  /** Runs one purge now (the timer's work; tests call it). */
  runOnce(): Promise<void>;
  stop(): void;
}

export function startCleanup(
  store: Pick<Store, 'purgeExpired'>,
  clock: Clock,
  log: Logger,
  settings: PurgeSettings,
  metrics: PurgeObserver | null = null,
): CleanupTimer {
  const { batch } = settings;
  let running: Promise<void> | null = null;
  const progress = (table: string, deleted: number): void => {
    if (deleted % (batch * BATCHES_A_PROGRESS_LINE) === 0) log.info('purging expired rows', { table, deleted });
  };
  const runOnce = (): Promise<void> => {
    const started = performance.now();
    return (running ??= store
      .purgeExpired(clock.now(), { batch, progress })
      .then(
        (report) => {
          const ms = performance.now() - started;
          metrics?.purge(report.ran ? 'ran' : 'skipped', report.deleted, ms / 1000);
          if (!report.ran) log.info('purge skipped: another instance is purging');
          else log.info('purged expired rows', { deleted: report.deleted, duration_ms: Math.round(ms) });
        },
        (error: unknown) => {
          metrics?.purge('failed', {}, (performance.now() - started) / 1000);
          log.warn('purge failed; next try at the next interval', {
            error: error instanceof Error ? error.message : String(error),
          });
        },
      )
      .finally(() => {
        running = null;
      }));
  };
  const intervalMs = settings.intervalMinutes * 60_000;
  if (intervalMs === 0) return { runOnce, stop: () => undefined };
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

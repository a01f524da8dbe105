/**
 * Migrations and the fixed accounts: run once before serving, by the single process or by the cluster
 * primary before it forks (docs/design.md#worker-processes). Safe when instances start together.
 */
import type { Config } from '../config/load.js';
import { systemClock, randomSource } from '../domain/ports.js';
import type { Clock, Random } from '../domain/ports.js';
import type { Logger } from '../log/logger.js';
import { piiHasher } from '../log/logger.js';
import { createHasher } from '../accounts/password-hashing.js';
import { MAINTENANCE_LIMITS } from '../services/store/db.js';
import { openStore } from '../services/store/index.js';
import type { Store } from '../services/store/index.js';
import { seedFixedAccounts } from '../services/store/seed.js';
import { writeCredentials } from './credentials.js';

export interface PrepareOptions {
  readonly config: Config;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly random?: Random;
}

export interface PreparedDatabase {
  /** A store opened for maintenance (no statement timeout), for the caller to keep or close. */
  readonly store: Store;
  /** Set when this start created the superuser and wrote its credentials to a file. */
  readonly credentialsFile: string | null;
}

export async function prepareDatabase(options: PrepareOptions): Promise<PreparedDatabase> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  const store = openStore(config.authdb, MAINTENANCE_LIMITS);
  try {
    await store.migrate({
      onRetry: (error, attempt) => {
        log.info('waiting for another instance to migrate', { attempt, error: error.message });
      },
    });
    const seeded = await seedFixedAccounts(
      store.users,
      { clock, random: options.random ?? randomSource, hasher: createHasher(config.passHash) },
      config.admin,
    );
    const credentialsFile =
      seeded.created === null ? null : writeCredentials(config.basedir, seeded.created, clock.now());
    if (seeded.created !== null) {
      const pii = piiHasher(config.piisalt);
      log.info('created the superuser account', { user: pii(seeded.created.email), credentials_file: credentialsFile });
    }
    return { store, credentialsFile };
  } catch (error) {
    await store.close();
    throw error;
  }
}

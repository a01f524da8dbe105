/**
 * The store: repos over one database. Repos return plain records and take times from the caller's
 * injected clock, never from the database.
 */
import type { Knex } from 'knex';
import type { Dialect } from './dialect.js';
import { migrate } from './migrations.js';
import { sessionRepo } from './sessions.js';
import type { SessionRepo } from './sessions.js';
import { openSqlite } from './sqlite.js';
import type { DatabaseTarget } from './url.js';
import { userRepo } from './users.js';
import type { UserRepo } from './users.js';

export interface Store {
  readonly dialect: Dialect;
  readonly knex: Knex;
  readonly users: UserRepo;
  readonly sessions: SessionRepo;
  /** Creates missing tables. */
  migrate(): Promise<void>;
  /** The health probe: the superuser row must be there (within `budgetMs`). */
  ping(budgetMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function openStore(target: DatabaseTarget): Store {
  const { db, knex } = openSqlite(target.filename);
  const dialect: Dialect = target.dialect;
  return {
    dialect,
    knex,
    users: userRepo(knex, dialect),
    sessions: sessionRepo(knex, dialect, db),
    migrate: () => migrate(knex, dialect),
    async ping(budgetMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), budgetMs);
      });
      const probe = knex('users')
        .select('user_role')
        .where('user_id', 1)
        .first()
        .then((row: { user_role?: unknown } | undefined) => row?.user_role === 'superuser')
        .catch(() => false);
      try {
        return await Promise.race([probe, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await knex.destroy();
      db.close();
    },
  };
}

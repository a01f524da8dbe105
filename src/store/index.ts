/**
 * The store: repos over one database (SQLite, PostgreSQL or MariaDB/MySQL). Repos return plain
 * records and take times from the caller's injected clock, never from the database. Every repo is
 * wrapped once here so that a database that cannot be reached surfaces as `UnavailableError`
 * (503), never as a 500 (unavailable.ts).
 */
import type { Knex } from 'knex';
import { apiKeyRepo } from './api-keys.js';
import type { ApiKeyRepo } from './api-keys.js';
import { purgeExpired } from './cleanup.js';
import type { PurgeReport } from './cleanup.js';
import { SERVING_LIMITS } from './db.js';
import type { Db, DbLimits } from './db.js';
import type { Dialect } from './dialect.js';
import { loginRepo } from './logins.js';
import type { LoginRepo } from './logins.js';
import { migrate } from './migrations.js';
import type { MigrateOptions } from './migrations.js';
import { openMysql } from './mysql.js';
import { openPg } from './pg.js';
import { sessionRepo } from './sessions.js';
import type { SessionRepo } from './sessions.js';
import { openSqlite } from './sqlite.js';
import { guardRepo } from './unavailable.js';
import type { DatabaseTarget } from './url.js';
import { userAdminRepo } from './user-admin.js';
import type { UserAdminRepo } from './user-admin.js';
import { userRepo } from './users.js';
import type { UserRepo } from './users.js';

export interface Store {
  readonly dialect: Dialect;
  readonly knex: Knex;
  /** The open database, for repos and helpers (atomic.ts) built on it. */
  readonly db: Db;
  readonly users: UserRepo;
  readonly sessions: SessionRepo;
  readonly logins: LoginRepo;
  /** Listing and matching, edits, superuser locks, deletion, the email-verification marks. */
  readonly userAdmin: UserAdminRepo;
  /** Session-tied and no-session API keys and refresh tokens. */
  readonly apiKeys: ApiKeyRepo;
  /** Creates missing tables (retrying while another instance holds the migration lock). */
  migrate(options?: MigrateOptions): Promise<void>;
  /** Deletes expired rows unless another instance is doing it (cleanup.ts). */
  purgeExpired(now: number): Promise<PurgeReport>;
  /** The health probe: the superuser row must be there (within `budgetMs`). */
  ping(budgetMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function openDb(target: DatabaseTarget, limits: DbLimits = SERVING_LIMITS): Db {
  switch (target.dialect) {
    case 'sqlite':
      return openSqlite(target);
    case 'pg':
      return openPg(target, limits);
    case 'mysql':
      return openMysql(target, limits);
  }
}

export function openStore(target: DatabaseTarget, limits: DbLimits = SERVING_LIMITS): Store {
  const db = openDb(target, limits);
  const { knex, dialect } = db;
  return {
    dialect,
    knex,
    db,
    users: guardRepo(userRepo(db)),
    sessions: guardRepo(sessionRepo(db)),
    logins: guardRepo(loginRepo(db)),
    userAdmin: guardRepo(userAdminRepo(db)),
    apiKeys: guardRepo(apiKeyRepo(db)),
    migrate: (options) => migrate(knex, dialect, options),
    purgeExpired: (now) => purgeExpired(db, now),
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
    close: () => db.close(),
  };
}

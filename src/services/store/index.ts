/**
 * The store: repos by aggregate (users, sessions, keys) over knex and the tables' descriptors (tables.ts), on one
 * database (SQLite, PostgreSQL or MariaDB/MySQL). Repos return plain records and take times from the caller's
 * injected clock, never from the database. Every repo is wrapped once here so that a database that cannot be reached
 * surfaces as `UnavailableError` (503), never as a 500 (availability.ts).
 */
import { apiKeyRepo } from './api-keys.js';
import { availability, CALL_DEADLINE_MS, guardRepo } from './availability.js';
import type { AvailabilityEvent } from './availability.js';
import type { ApiKeyRepo } from './api-keys.js';
import { purgeExpired } from './cleanup.js';
import { purgeOnThread } from './purge-thread.js';
import type { PurgeOptions, PurgeReport } from './cleanup.js';
import { SERVING_LIMITS } from './db.js';
import type { DbLimits } from './db.js';
import type { Dialect } from './dialect.js';
import { rememberKnex } from './direct-sql.js';
import { factorRepo } from './factors.js';
import type { FactorRepo } from './factors.js';
import { migrate } from './migrations.js';
import { openDb } from './open-db.js';
import type { Row } from './records.js';
import type { MigrateOptions } from './migrations.js';
import { sessionRepo } from './sessions.js';
import type { SessionRepo } from './sessions.js';
import { USERS } from './tables.js';
import type { DatabaseTarget } from './url.js';
import { userEventRepo } from './user-events.js';
import type { UserEventRepo } from './user-events.js';
import { userRepo } from './users.js';
import type { UserRepo } from './users.js';

export type { SessionRepo, SessionWithUser } from './sessions.js';
export type {
  ChallengePurpose,
  ChallengeRecord,
  FactorKind,
  FactorMethods,
  FactorRecord,
  FactorRepo,
  TicketRecord,
} from './factors.js';
export type {
  ColumnMatch,
  Credentials,
  EditOutcome,
  FailureCount,
  LockOutcome,
  UserChanges,
  UserRepo,
  UserStanding,
} from './user-repo.js';
export type { SessionRecord, UserRecord } from './records.js';
export type { AvailabilityEvent } from './availability.js';
export type { EventDetail, NewUserEvent, UserEventRecord, UserEventRepo } from './user-events.js';

export interface Store {
  readonly dialect: Dialect;
  /** The user aggregate: lookups, credentials and the lock-out counter, sign-up, administration. */
  readonly users: UserRepo;
  readonly sessions: SessionRepo;
  /** Session-tied and no-session API keys and refresh tokens. */
  readonly apiKeys: ApiKeyRepo;
  /** Second factors, recovery codes, login tickets and step-up proofs (docs/design.md#second-factors). */
  readonly factors: FactorRepo;
  /** The users' own security history (docs/design.md#security-history). */
  readonly userEvents: UserEventRepo;
  /** Creates missing tables (retrying while another instance holds the migration lock). */
  migrate(options?: MigrateOptions): Promise<void>;
  /** Deletes expired rows unless another instance is doing it (cleanup.ts). */
  purgeExpired(now: number, options?: PurgeOptions): Promise<PurgeReport>;
  /** The health probe: the superuser row must be there (within `budgetMs`). */
  ping(budgetMs: number): Promise<boolean>;
  /** Hears when the database stops answering the store's calls (with the cause), and when it answers again. */
  onAvailability(listener: (event: AvailabilityEvent) => void): void;
  close(): Promise<void>;
}

export function openStore(target: DatabaseTarget, limits: DbLimits = SERVING_LIMITS): Store {
  const db = openDb(target, limits);
  const { knex, dialect } = db;
  const watch = availability();
  // SQLite's synchronous driver needs no per-call timer (availability.ts).
  const deadlineMs = dialect === 'sqlite' ? null : CALL_DEADLINE_MS;
  const store: Store = {
    dialect,
    users: guardRepo(userRepo(db), deadlineMs, watch),
    sessions: guardRepo(sessionRepo(db), deadlineMs, watch),
    apiKeys: guardRepo(apiKeyRepo(db), deadlineMs, watch),
    factors: guardRepo(factorRepo(db), deadlineMs, watch),
    userEvents: guardRepo(userEventRepo(db), deadlineMs, watch),
    migrate: (options) => migrate(knex, dialect, options),
    // SQLite's purge runs on a thread and connection of its own, off the serving thread (purge-thread.ts).
    purgeExpired: (now, options = {}) =>
      target.dialect === 'sqlite' ? purgeOnThread(target, now, options) : purgeExpired(db, now, options),
    async ping(budgetMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), budgetMs);
      });
      const probe = knex(USERS.name)
        .select('user_role')
        .where('user_id', 1)
        .first()
        .then((user: Row | undefined) => user?.['user_role'] === 'superuser')
        .catch(() => false);
      try {
        return await Promise.race([probe, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    onAvailability: (listener) => watch.onChange(listener),
    close: () => db.close(),
  };
  rememberKnex(store, knex);
  return store;
}

import type { JsonObject } from '../protocol/index.js';
import type { Db } from './db.js';
import { boolFromDb, intFromDb, jsonToDb, timeToDb } from './dialect.js';
import { USER_COLUMNS, userFromRow } from './records.js';
import type { Row, UserRecord } from './records.js';

export interface NewUser {
  readonly userId?: number;
  readonly systemId: string;
  readonly fullName: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly emailVerified: boolean;
  readonly isActive: boolean;
  readonly userRole: string;
  readonly extraInfo: JsonObject;
  readonly now: number;
}

/** What authorization checks need of a user, read fresh on every check (no cache: a lock shows at once). */
export interface UserStanding {
  readonly userRole: string;
  readonly isActive: boolean;
}

export interface UserRepo {
  byId(userId: number): Promise<UserRecord | null>;
  /** The role and activity of each of these users that exists, in one query. */
  standings(userIds: readonly number[]): Promise<ReadonlyMap<number, UserStanding>>;
  /** Inserts a user unless one with the same id or email exists; true when this call inserted it. */
  insertIfAbsent(user: NewUser): Promise<boolean>;
  /**
   * Makes the database's own id counter hand out ids above `lastFixedId` (rows inserted with explicit
   * ids do not advance PostgreSQL's sequence, trap S8). Never moves a counter back, so an instance
   * starting beside a running one cannot make it hand out an id twice.
   */
  reserveFixedIds(lastFixedId: number): Promise<void>;
}

export function userRepo(db: Db): UserRepo {
  const { knex, dialect } = db;
  return {
    async byId(userId) {
      const row = (await knex('users').select(USER_COLUMNS).where('user_id', userId).first()) as Row | undefined;
      return row === undefined ? null : userFromRow(row);
    },

    async standings(userIds) {
      const rows = (await knex('users')
        .select('user_id', 'user_role', 'is_active')
        .whereIn('user_id', [...new Set(userIds)])) as Row[];
      return new Map(
        rows.map((row) => [
          intFromDb(row['user_id']),
          { userRole: String(row['user_role']), isActive: boolFromDb(row['is_active']) },
        ]),
      );
    },

    async insertIfAbsent(user) {
      await knex('users')
        .insert({
          ...(user.userId === undefined ? {} : { user_id: user.userId }),
          system_id: user.systemId,
          full_name: user.fullName,
          email: user.email,
          password: user.passwordHash,
          email_verified: user.emailVerified,
          is_active: user.isActive,
          user_role: user.userRole,
          extra_info: jsonToDb(user.extraInfo),
          created_on: timeToDb(dialect, user.now),
          last_updated: timeToDb(dialect, user.now),
          failed_login_tries: 0,
        })
        .onConflict()
        .ignore();
      // Whoever's system id is stored made the row: two instances seeding together both succeed,
      // and exactly one of them learns that it created the account.
      const row = (await knex('users').select('system_id').where('email', user.email).first()) as Row | undefined;
      return row !== undefined && row['system_id'] === user.systemId;
    },

    async reserveFixedIds(lastFixedId) {
      // SQLite (max(rowid) + 1) and MariaDB/MySQL (AUTO_INCREMENT moves past explicit ids) need nothing.
      if (dialect !== 'pg') return;
      await knex.raw(
        `SELECT setval(s.seq, ?) FROM (SELECT pg_get_serial_sequence('users', 'user_id')::regclass AS seq) s
          WHERE COALESCE(pg_sequence_last_value(s.seq), 0) < ?`,
        [lastFixedId, lastFixedId],
      );
    },
  };
}

/**
 * The administration of users (issue 6): listing and matching, edits, superuser locks, deletion, the
 * email-verification marks. Every write binds `last_updated` (and any other time) from the caller's
 * clock. Statements that change a row on a condition of its own old values are single statements, so
 * concurrent requests (in one process or several) cannot interleave a read and a write (trap S2); the
 * ones that must change several tables at once (a lock ends sessions and keys) run in a transaction
 * whose first statement writes, so SQLite never has to upgrade a read lock (trap S6).
 */
import type { Knex } from 'knex';
import type { JsonObject, MatchField } from '../protocol/index.js';
import type { Db } from './db.js';
import { intFromDb, jsonFromDb, jsonToDb, timeToDb } from './dialect.js';
import { USER_COLUMNS, userFromRow } from './records.js';
import type { Row, UserRecord } from './records.js';

/** Columns an edit may write (user-edit, internal-user-edit). `extra_info` goes by compare-and-swap. */
export interface UserChanges {
  readonly fullName?: string;
  readonly email?: string;
  readonly emailVerified?: boolean;
  readonly isActive?: boolean;
  readonly userRole?: string;
}

export type EditOutcome = 'ok' | 'not_found' | 'email_taken' | 'conflict';

/** A user-lookup-match value for a column: times are epoch ms, null matches a column never set. */
export type ColumnMatch = string | number | boolean | null;

export interface LockOutcome {
  /** The row after the statement. */
  readonly user: UserRecord;
  /** False when the row was already in the requested state. */
  readonly changed: boolean;
  /** Sessions ended by a lock (their session-tied keys went with them). */
  readonly endedSessions: number;
}

export interface EditableUser {
  readonly user: UserRecord;
  /** extra_info exactly as stored: the compare-and-swap compares with this text. */
  readonly extraInfoText: string | null;
}

export interface UserAdminRepo {
  /** Users with user_id > afterUserId, ordered by user_id, at most `limit`. */
  page(afterUserId: number, limit: number): Promise<UserRecord[]>;
  byEmail(email: string): Promise<UserRecord | null>;
  byIds(userIds: readonly number[]): Promise<UserRecord[]>;
  matchColumn(
    field: Exclude<MatchField, 'extra_info'>,
    value: ColumnMatch,
    afterUserId: number,
    limit: number,
  ): Promise<UserRecord[]>;
  /** user_id and extra_info of a page of users (extra_info is matched in TypeScript, alike everywhere). */
  extraInfoPage(
    afterUserId: number,
    limit: number,
  ): Promise<Array<{ readonly userId: number; readonly extraInfo: JsonObject | null }>>;
  forEdit(userId: number): Promise<EditableUser | null>;
  /**
   * Writes `changes`, and `extraInfo.next` only if extra_info is still `extraInfo.previousText`
   * (compare-and-swap: concurrent merges never lose one another's items).
   */
  edit(
    userId: number,
    changes: UserChanges,
    now: number,
    extraInfo?: { readonly previousText: string | null; readonly next: JsonObject },
  ): Promise<EditOutcome>;
  /** Superuser lock (DESIGN decision 12); null when the user does not exist. */
  lock(userId: number, now: number): Promise<LockOutcome | null>;
  unlock(userId: number, now: number): Promise<LockOutcome | null>;
  /** The user matching both id and email, with the password hash (for verification only). */
  credentials(userId: number, email: string): Promise<{ user: UserRecord; passwordHash: string } | null>;
  /** Deletes the user (never a superuser); sessions and keys go by cascade. False when nothing matched. */
  remove(userId: number, email: string): Promise<boolean>;
  /** Marks an unverified, not superuser-locked user verified and active (decision 9); true when it did. */
  markVerified(email: string, now: number): Promise<boolean>;
  markEmailSent(email: string, kind: 'signup' | 'forgotpass', now: number): Promise<boolean>;
}

/** A write that would store an email another row holds (unique index), on any of the three databases. */
function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, errno } = error as Error & { code?: unknown; errno?: unknown };
  return (
    code === '23505' || // PostgreSQL
    errno === 1062 || // MariaDB/MySQL ER_DUP_ENTRY
    code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}

export function userAdminRepo(db: Db): UserAdminRepo {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const users = (on: Knex | Knex.Transaction = knex): Knex.QueryBuilder => on('users').select(USER_COLUMNS);
  const many = async (query: Knex.QueryBuilder): Promise<UserRecord[]> =>
    ((await query) as Row[]).map((r) => userFromRow(r));
  const one = async (query: Knex.QueryBuilder): Promise<UserRecord | null> => {
    const row = (await query.first()) as Row | undefined;
    return row === undefined ? null : userFromRow(row);
  };

  const columns = (changes: UserChanges): Record<string, unknown> => ({
    ...(changes.fullName === undefined ? {} : { full_name: changes.fullName }),
    ...(changes.email === undefined ? {} : { email: changes.email }),
    ...(changes.emailVerified === undefined ? {} : { email_verified: changes.emailVerified }),
    ...(changes.isActive === undefined ? {} : { is_active: changes.isActive }),
    ...(changes.userRole === undefined ? {} : { user_role: changes.userRole }),
  });

  /** Ends every session (their session-tied keys cascade), no-session key and refresh token of a user. */
  const endEverything = async (trx: Knex.Transaction, userId: number): Promise<number> => {
    const ended = await trx('sessions').where('user_id', userId).del();
    await trx('refresh_tokens').where('user_id', userId).del();
    await trx('apikeys_nosession').where('user_id', userId).del();
    return ended;
  };

  return {
    page: (afterUserId, limit) => many(users().where('user_id', '>', afterUserId).orderBy('user_id').limit(limit)),

    byEmail: (email) => one(users().where('email', email)),

    byIds: (userIds) =>
      many(
        users()
          .whereIn('user_id', [...new Set(userIds)])
          .orderBy('user_id'),
      ),

    matchColumn(field, value, afterUserId, limit) {
      const query = users().where('user_id', '>', afterUserId).orderBy('user_id').limit(limit);
      if (value === null) return many(query.whereNull(field));
      const timed = field === 'created_on' || field === 'last_login_try' || field === 'last_login_success';
      return many(query.where(field, timed && typeof value === 'number' ? t(value) : value));
    },

    async extraInfoPage(afterUserId, limit) {
      const rows = (await knex('users')
        .select('user_id', 'extra_info')
        .where('user_id', '>', afterUserId)
        .orderBy('user_id')
        .limit(limit)) as Row[];
      return rows.map((row) => ({
        userId: intFromDb(row['user_id']),
        extraInfo: jsonFromDb<JsonObject | null>(row['extra_info'], null),
      }));
    },

    async forEdit(userId) {
      const row = (await users().where('user_id', userId).first()) as Row | undefined;
      if (row === undefined) return null;
      const raw = row['extra_info'];
      return {
        user: userFromRow(row),
        extraInfoText: raw === null || raw === undefined ? null : typeof raw === 'string' ? raw : jsonToDb(raw),
      };
    },

    async edit(userId, changes, now, extraInfo) {
      const query = knex('users').where('user_id', userId);
      const set: Record<string, unknown> = { ...columns(changes), last_updated: t(now) };
      if (extraInfo !== undefined) {
        if (extraInfo.previousText === null) query.whereNull('extra_info');
        else query.andWhere('extra_info', extraInfo.previousText);
        set['extra_info'] = jsonToDb(extraInfo.next);
      }
      let changed: number;
      try {
        changed = await query.update(set);
      } catch (error) {
        if (isUniqueViolation(error)) return 'email_taken';
        throw error;
      }
      if (changed > 0) return 'ok';
      const exists: unknown = await knex('users').where('user_id', userId).first('user_id');
      return exists === undefined ? 'not_found' : 'conflict';
    },

    lock: (userId, now) =>
      knex.transaction(async (trx) => {
        // previous_role is assigned before user_role, so it takes the old role under MySQL's
        // left-to-right SET as under simultaneous assignment. A user already locked by a superuser
        // keeps the role remembered then.
        const changed = await trx('users')
          .where('user_id', userId)
          .whereNull('previous_role')
          .update({
            previous_role: knex.ref('user_role'),
            user_role: 'locked',
            is_active: false,
            last_updated: t(now),
          });
        const user = await one(users(trx).where('user_id', userId));
        if (user === null) return null;
        // Ended even when the account was locked already: nothing of a locked account stays usable.
        const endedSessions = await endEverything(trx, userId);
        return { user, changed: changed > 0, endedSessions };
      }),

    async unlock(userId, now) {
      // One statement over the old values: the previous role comes back; the account is active again
      // only if its email was verified and it was not locked before (a never-verified account stays
      // locked and inactive, as it was). Under MySQL's left-to-right SET previous_role is cleared last.
      const changed = await knex('users')
        .where('user_id', userId)
        .whereNotNull('previous_role')
        .update({
          user_role: knex.ref('previous_role'),
          is_active: knex.raw('(?? = ? AND ?? <> ?)', ['email_verified', true, 'previous_role', 'locked']),
          previous_role: null,
          last_updated: t(now),
        });
      const user = await one(users().where('user_id', userId));
      return user === null ? null : { user, changed: changed > 0, endedSessions: 0 };
    },

    async credentials(userId, email) {
      const row = (await users().select('password').where({ user_id: userId, email }).first()) as Row | undefined;
      return row === undefined ? null : { user: userFromRow(row), passwordHash: String(row['password']) };
    },

    async remove(userId, email) {
      const deleted = await knex('users').where({ user_id: userId, email }).andWhereNot('user_role', 'superuser').del();
      return deleted > 0;
    },

    async markVerified(email, now) {
      const changed = await knex('users')
        .where('email', email)
        .andWhere('email_verified', false)
        .whereNull('previous_role')
        .update({
          email_verified: true,
          is_active: true,
          user_role: knex.raw('CASE WHEN ?? = ? THEN ? ELSE ?? END', [
            'user_role',
            'locked',
            'authenticated',
            'user_role',
          ]),
          last_updated: t(now),
        });
      return changed > 0;
    },

    async markEmailSent(email, kind, now) {
      const column = kind === 'signup' ? 'emailverify_sent_datetime' : 'emailforgotpass_sent_datetime';
      const changed = await knex('users')
        .where('email', email)
        .update({ [column]: t(now), last_updated: t(now) });
      return changed > 0;
    },
  };
}

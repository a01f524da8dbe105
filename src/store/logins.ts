/**
 * What sign-up, login and password changes need of the users table: credentials, the failed-login
 * counter and temporary lock (DESIGN decision 11), password replacement and the revocation of
 * no-session keys that goes with it (decision 12). Counters change in single statements (or under a
 * row lock on MySQL), never by reading, awaiting a hash and writing back (trap S2).
 */
import type { JsonObject } from '../protocol/index.js';
import type { Db } from './db.js';
import { intFromDb, jsonToDb, optionalTimeFromDb, timeToDb } from './dialect.js';
import { USER_COLUMNS, userFromRow } from './records.js';
import type { Row, UserRecord } from './records.js';

export interface Credentials {
  readonly user: UserRecord;
  readonly passwordHash: string;
}

export interface FailureCount {
  /** failed_login_tries after this failure. */
  readonly count: number;
  readonly lockedUntil: number | null;
  /** This failure is the one that set the lock (exactly one request per lock does). */
  readonly lockedNow: boolean;
}

export interface NewSignup {
  readonly systemId: string;
  readonly fullName: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly extraInfo: JsonObject;
  readonly now: number;
}

export type SignupOutcome =
  { readonly created: true; readonly userId: number } | { readonly created: false; readonly existing: UserRecord };

export interface LoginRepo {
  byEmail(email: string): Promise<Credentials | null>;
  byId(userId: number): Promise<Credentials | null>;
  /**
   * Counts a failed password check: failed_login_tries + 1 (back to 1 once an earlier lock has
   * expired), last_login_try = now; when the count first exceeds `tries`, locked_until = now + lockMs.
   */
  recordFailure(userId: number, now: number, tries: number, lockMs: number): Promise<FailureCount | null>;
  /** A successful check: the counter and any lock cleared, last_login_success and last_login_try = now. */
  recordSuccess(userId: number, now: number): Promise<void>;
  /** Replaces the password hash (a rehash, a change or a reset). */
  setPasswordHash(userId: number, passwordHash: string, now: number): Promise<void>;
  /** Inserts a new, unverified account unless the email is taken (then the existing account). */
  createSignup(signup: NewSignup): Promise<SignupOutcome>;
  /**
   * A repeated sign-up of an unverified address, once `notSentSince` has passed since the last
   * verification email: the row takes the new name, password and extra info. False when the row is
   * verified, or the wait has not passed (checked in the same statement, so two sign-ups race safely).
   */
  refreshUnverified(
    userId: number,
    signup: Omit<NewSignup, 'systemId' | 'email'>,
    notSentSince: number,
  ): Promise<boolean>;
  systemIdTaken(systemId: string): Promise<boolean>;
  /** Deletes the user's no-session API keys and refresh tokens; returns how many keys. */
  revokeNoSessionKeys(userId: number): Promise<number>;
}

export function loginRepo(db: Db): LoginRepo {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const columns = [...USER_COLUMNS, 'password'];
  const byEmail = db.hotRead('authsvc_credentials_by_email', () => knex('users').select(columns).where('email', ''));
  const byId = db.hotRead('authsvc_credentials_by_id', () => knex('users').select(columns).where('user_id', 0));
  const credentials = (row: Row | undefined): Credentials | null =>
    row === undefined ? null : { user: userFromRow(row), passwordHash: String(row['password']) };

  /** The new counter and lock, from the old ones: the same rule for the SQL and for MySQL's path. */
  const nextFailure = (
    old: { count: number; lockedUntil: number | null },
    now: number,
    tries: number,
    lockMs: number,
  ) => {
    const expired = old.lockedUntil !== null && old.lockedUntil <= now;
    const count = expired ? 1 : old.count + 1;
    const lockedUntil = expired ? null : (old.lockedUntil ?? (count > tries ? now + lockMs : null));
    return { count, lockedUntil };
  };

  return {
    byEmail: async (email) => credentials(await byEmail.first([email])),
    byId: async (userId) => credentials(await byId.first([userId])),

    async recordFailure(userId, now, tries, lockMs) {
      let result: { count: number; lockedUntil: number | null } | null;
      if (dialect === 'mysql') {
        // No RETURNING, and SET evaluates left to right: read and write under the row's lock.
        result = await knex.transaction(async (trx) => {
          const row = (await trx('users')
            .select('failed_login_tries', 'locked_until')
            .where('user_id', userId)
            .forUpdate()
            .first()) as Row | undefined;
          if (row === undefined) return null;
          const next = nextFailure(
            { count: intFromDb(row['failed_login_tries']), lockedUntil: optionalTimeFromDb(row['locked_until']) },
            now,
            tries,
            lockMs,
          );
          await trx('users')
            .where('user_id', userId)
            .update({
              failed_login_tries: next.count,
              locked_until: next.lockedUntil === null ? null : t(next.lockedUntil),
              last_login_try: t(now),
            });
          return next;
        });
      } else {
        // One statement; every CASE reads the row's old values (PostgreSQL and SQLite assign at once).
        const expired = knex.raw('locked_until IS NOT NULL AND locked_until <= ?', [t(now)]);
        const rows: Row[] = await knex('users')
          .where('user_id', userId)
          .update(
            {
              failed_login_tries: knex.raw('CASE WHEN ? THEN 1 ELSE failed_login_tries + 1 END', [expired]),
              locked_until: knex.raw(
                'CASE WHEN ? THEN NULL WHEN locked_until IS NULL AND failed_login_tries + 1 > ? THEN ? ELSE locked_until END',
                [expired, tries, t(now + lockMs)],
              ),
              last_login_try: t(now),
            },
            ['failed_login_tries', 'locked_until'],
          );
        const row = rows[0];
        result =
          row === undefined
            ? null
            : { count: intFromDb(row['failed_login_tries']), lockedUntil: optionalTimeFromDb(row['locked_until']) };
      }
      if (result === null) return null;
      return { ...result, lockedNow: result.lockedUntil !== null && result.count === tries + 1 };
    },

    async recordSuccess(userId, now) {
      await knex('users')
        .where('user_id', userId)
        .update({ failed_login_tries: 0, locked_until: null, last_login_success: t(now), last_login_try: t(now) });
    },

    async setPasswordHash(userId, passwordHash, now) {
      await knex('users')
        .where('user_id', userId)
        .update({ password: passwordHash, last_updated: t(now) });
    },

    async createSignup(signup) {
      await knex('users')
        .insert({
          system_id: signup.systemId,
          full_name: signup.fullName,
          email: signup.email,
          password: signup.passwordHash,
          email_verified: false,
          is_active: false,
          user_role: 'locked',
          extra_info: jsonToDb(signup.extraInfo),
          created_on: t(signup.now),
          last_updated: t(signup.now),
          emailverify_sent_datetime: t(signup.now),
          failed_login_tries: 0,
        })
        .onConflict('email')
        .ignore();
      // The unique email decides between simultaneous sign-ups; whoever's system id is stored won.
      const row = (await knex('users').select(USER_COLUMNS).where('email', signup.email).first()) as Row | undefined;
      if (row === undefined) throw new Error('sign-up: the row is neither inserted nor present');
      const user = userFromRow(row);
      return user.systemId === signup.systemId
        ? { created: true, userId: user.userId }
        : { created: false, existing: user };
    },

    async refreshUnverified(userId, signup, notSentSince) {
      const changed = await knex('users')
        .where('user_id', userId)
        .andWhere('email_verified', false)
        .andWhere((q) => {
          void q.whereNull('emailverify_sent_datetime').orWhere('emailverify_sent_datetime', '<=', t(notSentSince));
        })
        .update({
          full_name: signup.fullName,
          password: signup.passwordHash,
          extra_info: jsonToDb(signup.extraInfo),
          user_role: 'locked',
          is_active: false,
          last_updated: t(signup.now),
          emailverify_sent_datetime: t(signup.now),
        });
      return changed > 0;
    },

    async systemIdTaken(systemId) {
      return (await knex('users').select('user_id').where('system_id', systemId).first()) !== undefined;
    },

    async revokeNoSessionKeys(userId) {
      await knex('refresh_tokens').where('user_id', userId).del();
      return knex('apikeys_nosession').where('user_id', userId).del();
    },
  };
}

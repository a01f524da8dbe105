/**
 * The users repo's writes for sign-up, login and password changes: inserting accounts, the
 * failed-login counter and temporary lock (docs/design.md#lock-out-and-login-back-off), password replacement (the
 * revocation that goes with it is the API key repo's `revokeForUser`,
 * docs/design.md#superuser-lock-and-what-ends-with-it).
 *
 * The store's one technique for a counter that must say what it wrote
 * (docs/design.md#counters-that-say-what-they-wrote), proven by "20 concurrent wrong logins count 20 and lock once", in
 * one process and with `--workers 2`:
 * - PostgreSQL and SQLite: ONE `UPDATE … RETURNING` whose every expression reads the row's old values
 *   (both assign simultaneously);
 * - MariaDB/MySQL (no RETURNING; MySQL assigns left to right): read the row `FOR UPDATE`, compute the
 *   next values with the same rule, write them, in one transaction; the row lock serialises the rest.
 * Never read a value, await something (an argon2 verify) and write it back outside the lock.
 */
import type { Db } from './db.js';
import { timeToDb } from './dialect.js';
import { USER_COLUMNS } from './records.js';
import type { Row } from './records.js';
import { USERS, columnsToRow, userColumns, userRecord } from './tables.js';
import type { ColumnValues, UserColumns } from './tables.js';
import type { FailureCount, NewSignup, NewUser, SignupOutcome, UserRepo } from './user-repo.js';

type SignIn = Pick<
  UserRepo,
  | 'insertIfAbsent'
  | 'createSignup'
  | 'refreshUnverified'
  | 'recordFailure'
  | 'recordSuccess'
  | 'setPasswordHash'
  | 'reserveFixedIds'
>;

interface Count {
  readonly count: number;
  readonly lockedUntil: number | null;
}

/** The new counter and lock, from the old ones: the rule the SQL of `countInOneStatement` also writes. */
function nextFailure(old: Count, now: number, tries: number, lockMs: number): Count {
  const expired = old.lockedUntil !== null && old.lockedUntil <= now;
  const count = expired ? 1 : old.count + 1;
  const lockedUntil = expired ? null : (old.lockedUntil ?? (count > tries ? now + lockMs : null));
  return { count, lockedUntil };
}

/** The columns an insert of a user writes: its system id and email always. */
type NewRow = Partial<UserColumns> & Pick<UserColumns, 'system_id' | 'email'>;

const countOf = (user: UserColumns): Count => ({ count: user.failed_login_tries, lockedUntil: user.locked_until });

export function userSignIn(db: Db): SignIn {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const users = () => knex(USERS.name);
  const toDb = (values: ColumnValues<UserColumns>) => columnsToRow(USERS, dialect, values);

  // Every right password writes this (a login's own cost besides its hash): prepared once. The
  // constants are SQL, so the placeholders are the two times and then the user id.
  const success = db.hot('authsvc_login_success', () =>
    users()
      .where('user_id', 0)
      .update({
        failed_login_tries: knex.raw('0'),
        locked_until: knex.raw('NULL'),
        last_login_success: t(0),
        last_login_try: t(0),
      }),
  );

  /** PostgreSQL and SQLite: one statement; every CASE reads the row's old values. */
  const countInOneStatement = async (userId: number, now: number, tries: number, lockMs: number) => {
    const expired = knex.raw('locked_until IS NOT NULL AND locked_until <= ?', [t(now)]);
    const rows: Row[] = await users()
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
    const counted = rows[0];
    return counted === undefined ? null : countOf(userColumns(counted));
  };

  /** MariaDB/MySQL: read and write under the row's lock. */
  const countUnderRowLock = (userId: number, now: number, tries: number, lockMs: number) =>
    db.transaction(async (tx) => {
      const user = (await tx
        .on(users())
        .select('failed_login_tries', 'locked_until')
        .where('user_id', userId)
        .forUpdate()
        .first()) as Row | undefined;
      if (user === undefined) return null;
      const next = nextFailure(countOf(userColumns(user)), now, tries, lockMs);
      await tx
        .on(users())
        .update(toDb({ failed_login_tries: next.count, locked_until: next.lockedUntil, last_login_try: now }))
        .where('user_id', userId);
      return next;
    });

  /**
   * Inserts unless the row's unique columns are taken. Whoever's system id is stored made the row: two
   * instances seeding, or two sign-ups of one address, both succeed and exactly one learns it created it.
   */
  const insertUnlessTaken = async (values: NewRow, conflict: 'email' | undefined): Promise<SignupOutcome> => {
    const insert = users().insert(toDb(values));
    await (conflict === undefined ? insert.onConflict() : insert.onConflict(conflict)).ignore();
    // The row that took the place: by email, or by the fixed id when another instance stored that id
    // under another email first.
    const byColumn = async (column: string, value: string | number) =>
      (await users().select(USER_COLUMNS).where(column, value).first()) as Row | undefined;
    const stored =
      (await byColumn('email', values.email)) ??
      (values.user_id === undefined ? undefined : await byColumn('user_id', values.user_id));
    if (stored === undefined) throw new Error('insert: the row is neither inserted nor present');
    const user = userColumns(stored);
    return user.system_id === values.system_id
      ? { created: true, userId: user.user_id }
      : { created: false, existing: userRecord(stored) };
  };

  const newRow = (user: NewUser | NewSignup, now: number) => ({
    system_id: user.systemId,
    full_name: user.fullName,
    email: user.email,
    password: user.passwordHash,
    extra_info: user.extraInfo,
    created_on: now,
    last_updated: now,
    failed_login_tries: 0,
  });

  return {
    async insertIfAbsent(user) {
      const { now } = user;
      const values: NewRow = {
        ...(user.userId === undefined ? {} : { user_id: user.userId }),
        ...newRow(user, now),
        email_verified: user.emailVerified,
        is_active: user.isActive,
        user_role: user.userRole,
      };
      return (await insertUnlessTaken(values, undefined)).created;
    },

    createSignup(signup) {
      const { now } = signup;
      return insertUnlessTaken(
        {
          ...newRow(signup, now),
          email_verified: false,
          is_active: false,
          user_role: 'locked',
          emailverify_sent_datetime: now,
        },
        'email',
      );
    },

    async refreshUnverified(userId, signup, notSentSince) {
      const { now } = signup;
      const changed = await users()
        .update(
          toDb({
            full_name: signup.fullName,
            password: signup.passwordHash,
            extra_info: signup.extraInfo,
            user_role: 'locked',
            is_active: false,
            last_updated: now,
            emailverify_sent_datetime: now,
          }),
        )
        .where('user_id', userId)
        .andWhere('email_verified', false)
        // Only a sign-up never confirmed: an account in use whose changed address awaits confirmation,
        // or one a superuser locked, is never overwritten (docs/design.md#email-changes).
        .andWhere('is_active', false)
        .andWhere('user_role', 'locked')
        .whereNull('previous_role')
        .andWhere((q) => {
          void q.whereNull('emailverify_sent_datetime').orWhere('emailverify_sent_datetime', '<=', t(notSentSince));
        });
      return changed > 0;
    },

    async recordFailure(userId, now, tries, lockMs) {
      const result =
        dialect === 'mysql'
          ? await countUnderRowLock(userId, now, tries, lockMs)
          : await countInOneStatement(userId, now, tries, lockMs);
      if (result === null) return null;
      const failure: FailureCount = {
        ...result,
        lockedNow: result.lockedUntil !== null && result.count === tries + 1,
      };
      return failure;
    },

    async recordSuccess(userId, now) {
      await success.write([t(now), t(now), userId]);
    },

    async setPasswordHash(userId, passwordHash, now) {
      await users()
        .update(toDb({ password: passwordHash, last_updated: now }))
        .where('user_id', userId);
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

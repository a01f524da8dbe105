/**
 * The users repo's administration (issue 6): edits, superuser locks, deletion, the email-verification
 * marks. Statements that change a row on a condition of its own old values are single statements
 * (compare-and-swap: the condition is in the WHERE, the new values over the old ones in the SET), so
 * concurrent requests cannot interleave a read and a write (docs/design.md#counters-that-say-what-they-wrote); the ones
 * that must change several tables at once (a lock ends sessions and keys) run in a transaction whose first statement
 * writes, so SQLite never has to upgrade a read lock (docs/design.md#sqlite-one-connection-several-processes).
 */
import { fenceUser } from './api-keys.js';
import type { Db, Tx } from './db.js';
import { USER_COLUMNS } from './records.js';
import { isUniqueViolation } from './dialect.js';
import type { Row, UserRecord } from './records.js';
import { SESSIONS, USERS, columnsToRow, userRecord } from './tables.js';
import type { ColumnValues, UserColumns } from './tables.js';
import type { UserChanges, UserRepo } from './user-repo.js';

type Admin = Pick<UserRepo, 'edit' | 'lock' | 'unlock' | 'remove' | 'markVerified' | 'markEmailSent'>;

function columns(changes: UserChanges): ColumnValues<UserColumns> {
  return {
    ...(changes.fullName === undefined ? {} : { full_name: changes.fullName }),
    ...(changes.email === undefined ? {} : { email: changes.email }),
    ...(changes.emailVerified === undefined ? {} : { email_verified: changes.emailVerified }),
    ...(changes.isActive === undefined ? {} : { is_active: changes.isActive }),
    ...(changes.userRole === undefined ? {} : { user_role: changes.userRole }),
  };
}

export function userAdmin(db: Db): Admin {
  const { knex, dialect } = db;
  const users = () => knex(USERS.name);
  const toDb = (values: ColumnValues<UserColumns>) => columnsToRow(USERS, dialect, values);
  const current = async (userId: number, tx?: Tx): Promise<UserRecord | null> => {
    const query = users().select(USER_COLUMNS).where('user_id', userId).first();
    const found = (await (tx === undefined ? query : tx.on(query))) as Row | undefined;
    return found === undefined ? null : userRecord(found);
  };

  /**
   * Ends every session (their session-tied keys cascade), no-session key and refresh token of a user,
   * behind the revocation fence (docs/design.md#revocation-fence): in the lock's own transaction, so
   * the new role and the new credential generation commit together.
   */
  const endEverything = async (tx: Tx, userId: number): Promise<number> => {
    const ended = await tx.on(knex(SESSIONS.name)).delete().where('user_id', userId);
    await fenceUser(tx, knex, userId);
    return ended;
  };

  return {
    async edit(userId, changes, now, extraInfo) {
      const query = users()
        .update(
          toDb({
            ...columns(changes),
            ...(extraInfo === undefined ? {} : { extra_info: extraInfo.next }),
            last_updated: now,
          }),
        )
        .where('user_id', userId);
      if (extraInfo !== undefined) {
        if (extraInfo.previousText === null) void query.whereNull('extra_info');
        else void query.andWhere('extra_info', extraInfo.previousText);
      }
      let changed: number;
      try {
        changed = await query;
      } catch (error) {
        if (isUniqueViolation(error)) return 'email_taken';
        throw error;
      }
      if (changed > 0) return 'ok';
      const exists: unknown = await users().select('user_id').where('user_id', userId).first();
      return exists === undefined ? 'not_found' : 'conflict';
    },

    lock: (userId, now) =>
      db.transaction(async (tx) => {
        // previous_role is assigned before user_role, so it takes the old role under MySQL's
        // left-to-right SET as under simultaneous assignment. A user already locked by a superuser
        // keeps the role remembered then.
        const changed = await tx
          .on(users())
          .update(
            toDb({
              previous_role: knex.ref('user_role'),
              user_role: 'locked',
              is_active: false,
              last_updated: now,
            }),
          )
          .where('user_id', userId)
          .whereNull('previous_role');
        const user = await current(userId, tx);
        if (user === null) return null;
        // Ended even when the account was locked already: nothing of a locked account stays usable.
        const endedSessions = await endEverything(tx, userId);
        return { user, changed: changed > 0, endedSessions };
      }),

    async unlock(userId, now) {
      // One statement over the old values: the previous role comes back; the account is active again
      // only if its email was verified and it was not locked before (a never-verified account stays
      // locked and inactive, as it was). Under MySQL's left-to-right SET previous_role is cleared last.
      const changed = await users()
        .update(
          toDb({
            user_role: knex.ref('previous_role'),
            is_active: knex.raw('(?? = ? AND ?? <> ?)', ['email_verified', true, 'previous_role', 'locked']),
            previous_role: null,
            last_updated: now,
          }),
        )
        .where('user_id', userId)
        .whereNotNull('previous_role');
      // A superuser's unlock also ends a temporary lock-out (docs/design.md#lock-out-and-login-back-off): the way out
      // of a lock that someone imposes by failing the password on purpose (docs/security.md).
      const cleared = await users()
        .update(toDb({ failed_login_tries: 0, locked_until: null }))
        .where('user_id', userId)
        .whereRaw('(locked_until IS NOT NULL OR failed_login_tries > 0)');
      const user = await current(userId);
      return user === null ? null : { user, changed: changed + cleared > 0, endedSessions: 0 };
    },

    async remove(userId, email) {
      const deleted = await users().delete().where({ user_id: userId, email }).andWhereNot('user_role', 'superuser');
      return deleted > 0;
    },

    async markVerified(email, now) {
      const changed = await users()
        .update(
          toDb({
            email_verified: true,
            // A new sign-up (role `locked`) becomes an active user; an account in use only gets its changed
            // address confirmed, so one a superuser deactivated stays so (docs/design.md#email-changes).
            // is_active stays before user_role: MySQL assigns left to right, so it must read the old role.
            is_active: knex.raw('CASE WHEN ?? = ? THEN ? ELSE ?? END', ['user_role', 'locked', true, 'is_active']),
            user_role: knex.raw('CASE WHEN ?? = ? THEN ? ELSE ?? END', [
              'user_role',
              'locked',
              'authenticated',
              'user_role',
            ]),
            last_updated: now,
          }),
        )
        .where('email', email)
        .andWhere('email_verified', false)
        .whereNull('previous_role');
      return changed > 0;
    },

    async markEmailSent(email, kind, now) {
      const sent = kind === 'signup' ? { emailverify_sent_datetime: now } : { emailforgotpass_sent_datetime: now };
      const changed = await users()
        .update(toDb({ ...sent, last_updated: now }))
        .where('email', email);
      return changed > 0;
    },
  };
}

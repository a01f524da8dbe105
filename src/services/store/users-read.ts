/**
 * The reads of the users repo. A user is looked up by id or by email through ONE prepared statement
 * each (the login's and every initiator's hot read, docs/design.md#sqlite-knex-re-prepares-every-statement), whatever
 * the caller wants of the row: the record, the password hash, or extra_info's stored text for a compare-and-swap; the
 * table's descriptor maps the row (tables.ts). The access checks' standings are prepared statements too, one per
 * number of ids. Listings are knex builders.
 */
import type { Db } from './db.js';
import { timeToDb } from './dialect.js';
import { whereHolds } from './extra-info-match.js';
import { USER_COLUMNS } from './records.js';
import type { Row, UserRecord } from './records.js';
import { USERS, userColumns, userRecord } from './tables.js';
import type { Credentials, EditableUser, UserRepo } from './user-repo.js';

export type UserReads = Pick<
  UserRepo,
  | 'byId'
  | 'byEmail'
  | 'credentialsById'
  | 'credentialsByEmail'
  | 'forEdit'
  | 'standings'
  | 'page'
  | 'matchColumn'
  | 'extraInfoCandidates'
  | 'systemIdTaken'
>;

/**
 * The window of user ids one SQLite statement of an extra_info match reads: its first size and its bounds, and the
 * statement times (ms) under which it doubles and over which it halves.
 */
const SQLITE_WINDOW = { first: 5000, least: 1000, most: 1 << 20, quickMs: 4, slowMs: 16 } as const;

const TIMED = new Set(['created_on', 'last_login_try', 'last_login_success']);

/**
 * Standings of up to this many distinct users are prepared statements, one per count (a check names
 * the caller, the owner and its shared-with users: usually one to a few); more go through knex.
 */
const PREPARED_STANDINGS = 16;
const STANDING_COLUMNS = ['user_id', 'user_role', 'is_active', 'credential_generation'];

export function userReads(db: Db): UserReads {
  const { knex, dialect } = db;
  const users = () => knex(USERS.name);
  const columns = [...USER_COLUMNS, 'password'];
  const byIdRead = db.hot('authsvc_credentials_by_id', () => users().select(columns).where('user_id', 0));
  const byEmailRead = db.hot('authsvc_credentials_by_email', () => users().select(columns).where('email', ''));
  const credentials = (row: Row | undefined): Credentials | null =>
    row === undefined ? null : { user: userRecord(row), passwordHash: String(row['password']) };
  const standingsOf = Array.from({ length: PREPARED_STANDINGS + 1 }, (_, count) =>
    db.hot(`authsvc_standings_${count}`, () =>
      users()
        .select(STANDING_COLUMNS)
        .whereIn(
          'user_id',
          Array.from({ length: count }, () => 0),
        ),
    ),
  );
  const records = async (query: PromiseLike<unknown>): Promise<UserRecord[]> =>
    ((await query) as Row[]).map(userRecord);
  const listed = () => users().select(USER_COLUMNS);

  return {
    byId: async (userId) => credentials(await byIdRead.first([userId]))?.user ?? null,
    byEmail: async (email) => credentials(await byEmailRead.first([email]))?.user ?? null,

    async credentialsById(userId, email) {
      const found = credentials(await byIdRead.first([userId]));
      // Byte for byte, as the binary collation compares stored emails.
      return found === null || (email !== undefined && found.user.email !== email) ? null : found;
    },
    credentialsByEmail: async (email) => credentials(await byEmailRead.first([email])),

    async forEdit(userId): Promise<EditableUser | null> {
      const row = await byIdRead.first([userId]);
      if (row === undefined) return null;
      const raw = row['extra_info'];
      return {
        user: userRecord(row),
        extraInfoText: raw === null || raw === undefined ? null : typeof raw === 'string' ? raw : JSON.stringify(raw),
      };
    },

    // On every user-check-access: a prepared statement and the descriptor's mapping, nothing more.
    async standings(userIds) {
      const distinct = [...new Set(userIds)];
      const prepared = standingsOf[distinct.length];
      const rows =
        prepared === undefined
          ? ((await users().select(STANDING_COLUMNS).whereIn('user_id', distinct)) as Row[])
          : await prepared.all(distinct);
      return new Map(
        rows.map((row) => {
          const user = userColumns(row);
          return [
            user.user_id,
            {
              userRole: user.user_role,
              isActive: user.is_active,
              credentialGeneration: user.credential_generation,
            },
          ];
        }),
      );
    },

    page: (afterUserId, limit) => records(listed().where('user_id', '>', afterUserId).orderBy('user_id').limit(limit)),

    matchColumn(field, value, afterUserId, limit) {
      const query = listed().where('user_id', '>', afterUserId).orderBy('user_id').limit(limit);
      if (value === null) return records(query.whereNull(field));
      return records(
        query.where(field, TIMED.has(field) && typeof value === 'number' ? timeToDb(dialect, value) : value),
      );
    },

    async *extraInfoCandidates(wanted, afterUserId, batch) {
      const from = (after: number) =>
        whereHolds(listed().where('user_id', '>', after), dialect, wanted)
          .orderBy('user_id')
          .limit(batch);
      if (dialect !== 'sqlite') {
        // A statement a batch: PostgreSQL's and MariaDB's statement timeouts bound each (db.ts).
        for (let after = afterUserId; ;) {
          const rows = await records(from(after));
          yield rows;
          const last = rows.at(-1);
          if (last === undefined || rows.length < batch) return;
          after = last.userId;
        }
      }
      // SQLite has no statement timeout, and its driver holds the event loop for a whole statement: a statement
      // reads a window of user ids, which grows while statements are quick (an index serves the match) and shrinks
      // when they are not, and the event loop turns between two (docs/design.md#user-lookup-match-by-extra_info).
      const top = await users().max<{ last: number | null }>('user_id', { as: 'last' }).first();
      const lastId = top?.last ?? 0;
      let window: number = SQLITE_WINDOW.first;
      for (let after = afterUserId; after < lastId;) {
        const started = performance.now();
        const rows = await records(from(after).where('user_id', '<=', after + window));
        const ms = performance.now() - started;
        yield rows;
        after = rows.length === batch ? (rows.at(-1)?.userId ?? lastId) : after + window;
        if (ms < SQLITE_WINDOW.quickMs) window = Math.min(window * 2, SQLITE_WINDOW.most);
        else if (ms > SQLITE_WINDOW.slowMs) window = Math.max(Math.floor(window / 2), SQLITE_WINDOW.least);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },

    systemIdTaken: async (systemId) =>
      (await users().select('user_id').where('system_id', systemId).first()) !== undefined,
  };
}

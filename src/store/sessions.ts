import type { Knex } from 'knex';
import type { Db } from './db.js';
import { jsonToDb, timeToDb } from './dialect.js';
import { SESSION_COLUMNS, USER_COLUMNS, sessionFromRow, userFromRow } from './records.js';
import type { Row, SessionRecord, UserRecord } from './records.js';

export interface SessionWithUser {
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

export interface SessionRepo {
  /** Inserts a session; false when its user does not exist. */
  create(session: SessionRecord): Promise<boolean>;
  /** An unexpired session (expires > now) with its user. */
  findWithUser(tokenHash: string, now: number): Promise<SessionWithUser | null>;
  find(tokenHash: string, now: number): Promise<SessionRecord | null>;
  delete(tokenHash: string): Promise<boolean>;
  /** Deletes the user's sessions except `keepHash` (when given); returns how many. */
  deleteForUser(userId: number, keepHash: string | null): Promise<number>;
  /**
   * Compare-and-swap of extra_info_json: writes `next` only if the stored value is still `previous`
   * and the session has not expired, so two concurrent edits never lose one another's items.
   * (The stored text is always JSON.stringify of a parsed object, so re-serialising `previous` gives
   * the stored text again.)
   */
  swapExtraInfo(
    tokenHash: string,
    previous: SessionRecord['extraInfo'],
    next: SessionRecord['extraInfo'],
    now: number,
  ): Promise<boolean>;
}

/** Prefixes keep user and session columns apart in the joined row. */
const JOINED = [...USER_COLUMNS.map((c) => `u.${c} as u_${c}`), ...SESSION_COLUMNS.map((c) => `s.${c} as s_${c}`)];

export function sessionRepo(db: Db): SessionRepo {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);

  const joinedQuery = (tokenHash: string, now: number): Knex.QueryBuilder =>
    knex('sessions as s')
      .join('users as u', 'u.user_id', 's.user_id')
      .select(JOINED)
      .where('s.token_hash', tokenHash)
      .andWhere('s.expires', '>', t(now));

  // The hot read of session-exists: a cached prepared statement (the SQL is still knex's).
  const joined = db.hotRead('authsvc_session_with_user', () => joinedQuery('', 0));

  const toWithUser = (row: Row): SessionWithUser => ({
    session: sessionFromRow(row, 's_'),
    user: userFromRow(row, 'u_'),
  });

  return {
    async create(session) {
      // One statement: the session is inserted only if its user exists.
      await knex.into(knex.raw('?? (??, ??, ??, ??, ??, ??, ??)', ['sessions', ...SESSION_COLUMNS])).insert(
        knex('users')
          .select(
            knex.raw('?, user_id, ?, ?, ?, ?, ?', [
              session.tokenHash,
              session.ipAddress,
              session.userAgent,
              t(session.created),
              t(session.expires),
              jsonToDb(session.extraInfo),
            ]),
          )
          .where('user_id', session.userId),
      );
      const found: unknown = await knex('sessions').where('token_hash', session.tokenHash).first('token_hash');
      return found !== undefined;
    },

    async findWithUser(tokenHash, now) {
      const row = await joined.first([tokenHash, t(now)]);
      return row === undefined ? null : toWithUser(row);
    },

    async find(tokenHash, now) {
      const row = (await knex('sessions')
        .select(SESSION_COLUMNS)
        .where('token_hash', tokenHash)
        .andWhere('expires', '>', t(now))
        .first()) as Row | undefined;
      return row === undefined ? null : sessionFromRow(row);
    },

    async delete(tokenHash) {
      return (await knex('sessions').where('token_hash', tokenHash).del()) > 0;
    },

    async deleteForUser(userId, keepHash) {
      const query = knex('sessions').where('user_id', userId);
      if (keepHash !== null) query.andWhereNot('token_hash', keepHash);
      return query.del();
    },

    async swapExtraInfo(tokenHash, previous, next, now) {
      const changed = await knex('sessions')
        .where('token_hash', tokenHash)
        .andWhere('extra_info_json', jsonToDb(previous))
        .andWhere('expires', '>', t(now))
        .update({ extra_info_json: jsonToDb(next) });
      return changed > 0;
    },
  };
}

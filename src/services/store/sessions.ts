/**
 * The sessions repo, over the sessions table. session-new's insert and session-exists' read are hot
 * statements (prepared once, their SQL still built by knex); the tables' descriptors (tables.ts) map
 * their values and rows.
 */
import type { Db } from './db.js';
import { jsonToDb, timeToDb } from './dialect.js';
import { SESSION_COLUMNS, USER_COLUMNS } from './records.js';
import type { Row, SessionRecord, UserRecord } from './records.js';
import { SESSIONS, USERS, columnsToRow, sessionRecord, userRecord } from './tables.js';
import type { ColumnValues, SessionColumns } from './tables.js';

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
  /** The user's unexpired sessions, the most recently seen first, at most `limit` (docs/design.md#devices). */
  listForUser(userId: number, now: number, limit: number): Promise<SessionRecord[]>;
  /** The unexpired session of this public id. */
  findById(sessionId: string, now: number): Promise<SessionRecord | null>;
  /** Deletes the session of this public id if it is `userId`'s; false when there is none. */
  deleteById(sessionId: string, userId: number): Promise<boolean>;
  /** Sets last_seen to `now` unless it is at or after `staleBefore` already (written once per interval). */
  touch(tokenHash: string, now: number, staleBefore: number): Promise<void>;
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

/** The columns of a joined row that carry `prefix`, without it. */
function unprefixed(row: Row, prefix: string, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column] = row[prefix + column];
  return out;
}

export function sessionRepo(db: Db): SessionRepo {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const sessions = () => knex(SESSIONS.name);
  const toDb = (values: ColumnValues<SessionColumns>) => columnsToRow(SESSIONS, dialect, values);

  const joined = db.hot('authsvc_session_with_user', () =>
    knex('sessions as s')
      .join('users as u', 'u.user_id', 's.user_id')
      .select(JOINED)
      .where('s.token_hash', '')
      .andWhere('s.expires', '>', t(0)),
  );

  // One statement: the session is inserted only if its user exists, and the count of rows it
  // inserted says which happened (no second SELECT). Placeholders: the eight values, then the user id.
  const insert = db.hot('authsvc_session_insert', () =>
    knex.into(knex.raw(`?? (${SESSION_COLUMNS.map(() => '??').join(', ')})`, ['sessions', ...SESSION_COLUMNS])).insert(
      knex(USERS.name)
        .select(knex.raw('?, user_id, ?, ?, ?, ?, ?, ?, ?', ['', '', '', 0, 0, '', '', 0]))
        .where('user_id', 0),
    ),
  );

  // Every login, logout and password check reads the session it was given.
  const byToken = db.hot('authsvc_session_by_token', () =>
    sessions().select(SESSION_COLUMNS).where('token_hash', '').andWhere('expires', '>', t(0)),
  );

  // Every login and logout ends the session it was given.
  const remove = db.hot('authsvc_session_delete', () => sessions().delete().where('token_hash', ''));

  return {
    async create(session) {
      const inserted = await insert.write([
        session.tokenHash,
        session.ipAddress,
        session.userAgent,
        t(session.created),
        t(session.expires),
        jsonToDb(session.extraInfo),
        session.sessionId,
        t(session.lastSeen),
        session.userId,
      ]);
      return inserted > 0;
    },

    async findWithUser(tokenHash, now) {
      const row = await joined.first([tokenHash, t(now)]);
      if (row === undefined) return null;
      return {
        session: sessionRecord(unprefixed(row, 's_', SESSION_COLUMNS)),
        user: userRecord(unprefixed(row, 'u_', USER_COLUMNS)),
      };
    },

    async find(tokenHash, now) {
      const row = await byToken.first([tokenHash, t(now)]);
      return row === undefined ? null : sessionRecord(row);
    },

    async delete(tokenHash) {
      return (await remove.write([tokenHash])) > 0;
    },

    async deleteForUser(userId, keepHash) {
      const query = sessions().delete().where('user_id', userId);
      if (keepHash !== null) void query.andWhereNot('token_hash', keepHash);
      return query;
    },

    async listForUser(userId, now, limit) {
      const rows = (await sessions()
        .select(SESSION_COLUMNS)
        .where('user_id', userId)
        .andWhere('expires', '>', t(now))
        .orderBy([
          { column: 'last_seen', order: 'desc' },
          { column: 'session_id', order: 'asc' },
        ])
        .limit(limit)) as Row[];
      return rows.map(sessionRecord);
    },

    async findById(sessionId, now) {
      const row = (await sessions()
        .first(SESSION_COLUMNS)
        .where('session_id', sessionId)
        .andWhere('expires', '>', t(now))) as Row | undefined;
      return row === undefined ? null : sessionRecord(row);
    },

    async deleteById(sessionId, userId) {
      return (await sessions().delete().where('session_id', sessionId).andWhere('user_id', userId)) > 0;
    },

    async touch(tokenHash, now, staleBefore) {
      await sessions()
        .update({ last_seen: t(now) })
        .where('token_hash', tokenHash)
        .andWhere('last_seen', '<', t(staleBefore));
    },

    async swapExtraInfo(tokenHash, previous, next, now) {
      const changed = await sessions()
        .update(toDb({ extra_info_json: next }))
        .where('token_hash', tokenHash)
        .andWhere('extra_info_json', JSON.stringify(previous))
        .andWhere('expires', '>', t(now));
      return changed > 0;
    },
  };
}

/**
 * The repo of the key aggregates (docs/design.md#tokens-are-stored-hashed, docs/design.md#api-keys-and-refresh-tokens,
 * docs/design.md#database-urls-times-and-models): session-tied keys, no-session keys and their refresh tokens, over
 * knex, their rows mapped by the tables' descriptors (tables.ts). Every token is stored only as its SHA-256 hash. The
 * verify lookups are hot reads (cached prepared statements); the rest are knex builders.
 *
 * Rotation is one transaction that starts by claiming the old refresh token with a conditional UPDATE
 * (`rotated_at IS NULL`): of two concurrent refreshes with one token, in one process or several, exactly
 * one claims it (the database's row lock decides), and the loser changes nothing.
 *
 * The revocation fence (docs/design.md#revocation-fence): every key and refresh token records its
 * user's `credential_generation` as the issuer read it with the permission check; every revocation
 * bumps it (`fenceUser`), and the verify reads join the user and find only rows of the current
 * generation. A key whose insert lands after a revocation's DELETE therefore never verifies.
 */
import type { Knex } from 'knex';
import type { Db, Tx } from './db.js';
import { isForeignKeyViolation, timeToDb } from './dialect.js';
import type { Row } from './records.js';
import { APIKEYS, NOSESSION_APIKEYS, REFRESH_TOKENS, SESSIONS, USERS, columnsToRow, rowToColumns } from './tables.js';

/** What every key records: the fields of its dict, with the token as its hash. */
export interface KeyRecord {
  readonly tknHash: string;
  /** The user's credential generation when the key was issued (the fence); never in the key dict. */
  readonly generation: number;
  readonly userId: number;
  readonly userRole: string;
  readonly issuer: string;
  readonly audience: string;
  readonly subject: string | readonly string[];
  readonly apiversion: number;
  readonly ipAddress: string;
  readonly issued: number;
  readonly notValidBefore: number;
  readonly expires: number;
}

export interface SessionKeyRecord extends KeyRecord {
  readonly sessionHash: string;
  readonly userAgent: string;
}

export interface NoSessionKeyRecord extends KeyRecord {
  readonly familyId: string;
}

export interface RefreshRecord {
  readonly tokenHash: string;
  readonly familyId: string;
  readonly apikeyHash: string;
  readonly userId: number;
  /** As the key's: the user's credential generation when the token was issued. */
  readonly generation: number;
  readonly issued: number;
  readonly notValidBefore: number;
  readonly expires: number;
  readonly rotatedAt: number | null;
}

/** Which sessions `revokeForUser` ends besides revoking the keys: all, none, or all but one. */
export type SessionsToEnd = 'all' | 'none' | { readonly keep: string };

export interface Revoked {
  readonly sessions: number;
  readonly keys: number;
}

export interface ApiKeyRepo {
  /** Inserts a session-tied key; false when its session is gone (deleted meanwhile). */
  createSessionKey(key: SessionKeyRecord): Promise<boolean>;
  /** A session-tied key whose session has not expired at `now`. */
  findSessionKey(tknHash: string, now: number): Promise<SessionKeyRecord | null>;
  revokeSessionKey(tknHash: string): Promise<boolean>;
  /** Inserts a no-session key and its refresh token together. */
  createNoSessionKey(key: NoSessionKeyRecord, refresh: RefreshRecord): Promise<void>;
  findNoSessionKey(tknHash: string): Promise<NoSessionKeyRecord | null>;
  /** Deletes a no-session key and its refresh tokens. */
  revokeNoSessionKey(tknHash: string): Promise<boolean>;
  /** Deletes every no-session key and refresh token of the user; returns how many keys. */
  revokeAllNoSession(userId: number): Promise<number>;
  /** A refresh token of its user's current credential generation. */
  findRefresh(tokenHash: string): Promise<RefreshRecord | null>;
  /**
   * Exchanges `oldRefreshHash` (of key `oldKeyHash`) for a new key and refresh token, at `now`: false,
   * with nothing changed, when the token was already rotated (another request won).
   */
  rotate(
    oldRefreshHash: string,
    oldKeyHash: string,
    now: number,
    key: NoSessionKeyRecord,
    refresh: RefreshRecord,
  ): Promise<boolean>;
  /** Revokes every key and refresh token of a family (reuse of a rotated token); returns how many keys. */
  revokeFamily(familyId: string): Promise<number>;
  /**
   * Ends the user's sessions as told (their session-tied keys go with them) and revokes all the user's
   * no-session keys and refresh tokens behind the fence (`fenceUser`): the one call of deactivation, role
   * change, password change and reset (user-lock fences in its own transaction). A kept session's keys
   * are carried over to the new generation.
   */
  revokeForUser(userId: number, options?: { readonly sessions?: SessionsToEnd }): Promise<Revoked>;
}

const KEY_COLUMNS = [
  'tkn_hash',
  'credential_generation',
  'user_id',
  'user_role',
  'issuer',
  'audience',
  'subject',
  'apiversion',
  'ip_address',
  'issued',
  'not_valid_before',
  'expires',
] as const;

function keyFromJson(json: Row): KeyRecord {
  return {
    tknHash: String(json['tkn_hash']),
    generation: Number(json['credential_generation']),
    userId: Number(json['user_id']),
    userRole: String(json['user_role']),
    issuer: String(json['issuer']),
    audience: String(json['audience']),
    subject: json['subject'] as string | string[],
    apiversion: Number(json['apiversion']),
    ipAddress: String(json['ip_address']),
    issued: Number(json['issued']),
    notValidBefore: Number(json['not_valid_before']),
    expires: Number(json['expires']),
  };
}

function keyToJson(key: KeyRecord): Record<string, unknown> {
  return {
    tkn_hash: key.tknHash,
    credential_generation: key.generation,
    user_id: key.userId,
    user_role: key.userRole,
    issuer: key.issuer,
    audience: key.audience,
    subject: key.subject,
    apiversion: key.apiversion,
    ip_address: key.ipAddress,
    issued: key.issued,
    not_valid_before: key.notValidBefore,
    expires: key.expires,
  };
}

const sessionKeyFromJson = (json: Row): SessionKeyRecord => ({
  ...keyFromJson(json),
  sessionHash: String(json['session_hash']),
  userAgent: String(json['user_agent']),
});

const noSessionKeyFromJson = (json: Row): NoSessionKeyRecord => ({
  ...keyFromJson(json),
  familyId: String(json['family_id']),
});

function refreshFromJson(json: Row): RefreshRecord {
  return {
    tokenHash: String(json['token_hash']),
    familyId: String(json['family_id']),
    apikeyHash: String(json['apikey_hash']),
    userId: Number(json['user_id']),
    generation: Number(json['credential_generation']),
    issued: Number(json['issued']),
    notValidBefore: Number(json['not_valid_before']),
    expires: Number(json['expires']),
    rotatedAt: json['rotated_at'] === null || json['rotated_at'] === undefined ? null : Number(json['rotated_at']),
  };
}

const refreshToJson = (refresh: RefreshRecord): Record<string, unknown> => ({
  token_hash: refresh.tokenHash,
  family_id: refresh.familyId,
  apikey_hash: refresh.apikeyHash,
  user_id: refresh.userId,
  credential_generation: refresh.generation,
  issued: refresh.issued,
  not_valid_before: refresh.notValidBefore,
  expires: refresh.expires,
  rotated_at: refresh.rotatedAt,
});

const REFRESH_COLUMNS = [
  'token_hash',
  'family_id',
  'apikey_hash',
  'user_id',
  'credential_generation',
  'issued',
  'not_valid_before',
  'expires',
  'rotated_at',
] as const;

/**
 * The fence's join of a verify read: the row's user, only while the row's generation is the user's
 * (a fenced row reads as absent, exactly like a deleted one).
 */
const currentGeneration = (row: string) => (join: Knex.JoinClause) =>
  join.on('u.user_id', `${row}.user_id`).andOn('u.credential_generation', `${row}.credential_generation`);

/**
 * The revocation fence (docs/design.md#revocation-fence), run inside the revoking transaction: bumps
 * the user's credential generation, so that nothing issued before it verifies (not even a key whose
 * insert commits after the deletes below), and deletes the user's no-session keys and refresh tokens.
 * Returns how many keys. Every revocation goes through here.
 */
export async function fenceUser(tx: Tx, knex: Knex, userId: number): Promise<number> {
  await tx.on(knex(USERS.name)).where('user_id', userId).increment('credential_generation', 1);
  await tx.on(knex(REFRESH_TOKENS.name)).where('user_id', userId).delete();
  return tx.on(knex(NOSESSION_APIKEYS.name)).where('user_id', userId).delete();
}

export function apiKeyRepo(db: Db): ApiKeyRepo {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const sessionKeys = () => knex(APIKEYS.name);
  const noSessionKeys = () => knex(NOSESSION_APIKEYS.name);
  const refreshTokens = () => knex(REFRESH_TOKENS.name);
  const newNoSessionKey = (key: NoSessionKeyRecord) =>
    columnsToRow(NOSESSION_APIKEYS, dialect, { ...keyToJson(key), family_id: key.familyId });
  const newRefresh = (refresh: RefreshRecord) => columnsToRow(REFRESH_TOKENS, dialect, refreshToJson(refresh));

  const sessionKey = db.hot('authsvc_session_apikey', () =>
    knex('apikeys as a')
      .join('sessions as s', 's.token_hash', 'a.session_hash')
      .join('users as u', currentGeneration('a'))
      .select([...KEY_COLUMNS.map((c) => `a.${c}`), 'a.session_hash', 'a.user_agent'])
      .where('a.tkn_hash', '')
      .andWhere('s.expires', '>', 0),
  );
  const noSessionKey = db.hot('authsvc_nosession_apikey', () =>
    knex('apikeys_nosession as k')
      .join('users as u', currentGeneration('k'))
      .select([...KEY_COLUMNS, 'family_id'].map((c) => `k.${c}`))
      .where('k.tkn_hash', ''),
  );
  const refreshToken = db.hot('authsvc_refresh_token', () =>
    knex('refresh_tokens as r')
      .join('users as u', currentGeneration('r'))
      .select(REFRESH_COLUMNS.map((c) => `r.${c}`))
      .where('r.token_hash', ''),
  );

  return {
    async createSessionKey(key) {
      try {
        await sessionKeys().insert(
          columnsToRow(APIKEYS, dialect, {
            ...keyToJson(key),
            session_hash: key.sessionHash,
            user_agent: key.userAgent,
          }),
        );
        return true;
      } catch (error) {
        if (isForeignKeyViolation(error)) return false;
        throw error;
      }
    },

    async findSessionKey(tknHash, now) {
      const row = await sessionKey.first([tknHash, t(now)]);
      return row === undefined ? null : sessionKeyFromJson(rowToColumns(APIKEYS, row));
    },

    async revokeSessionKey(tknHash) {
      return (await sessionKeys().where('tkn_hash', tknHash).delete()) > 0;
    },

    async createNoSessionKey(key, refresh) {
      await db.transaction(async (tx) => {
        await tx.on(noSessionKeys()).insert(newNoSessionKey(key));
        await tx.on(refreshTokens()).insert(newRefresh(refresh));
      });
    },

    async findNoSessionKey(tknHash) {
      const row = await noSessionKey.first([tknHash]);
      return row === undefined ? null : noSessionKeyFromJson(rowToColumns(NOSESSION_APIKEYS, row));
    },

    revokeNoSessionKey: (tknHash) =>
      db.transaction(async (tx) => {
        await tx.on(refreshTokens()).where('apikey_hash', tknHash).delete();
        return (await tx.on(noSessionKeys()).where('tkn_hash', tknHash).delete()) > 0;
      }),

    revokeAllNoSession: (userId) =>
      db.transaction(async (tx) => {
        await tx.on(refreshTokens()).where('user_id', userId).delete();
        return tx.on(noSessionKeys()).where('user_id', userId).delete();
      }),

    async findRefresh(tokenHash) {
      const row = await refreshToken.first([tokenHash]);
      return row === undefined ? null : refreshFromJson(rowToColumns(REFRESH_TOKENS, row));
    },

    rotate: (oldRefreshHash, oldKeyHash, now, key, refresh) =>
      db.transaction(async (tx) => {
        // The claim: only one request can move rotated_at from NULL (the row lock serialises them).
        const claimed = await tx
          .on(refreshTokens())
          .where('token_hash', oldRefreshHash)
          .whereNull('rotated_at')
          .update(columnsToRow(REFRESH_TOKENS, dialect, { rotated_at: now }));
        if (claimed === 0) return false;
        await tx.on(noSessionKeys()).where('tkn_hash', oldKeyHash).delete();
        // The old key's other refresh tokens (none are issued today) go with it; the rotated one stays
        // until it expires, so that presenting it again is recognised as reuse.
        await tx.on(refreshTokens()).where('apikey_hash', oldKeyHash).whereNot('token_hash', oldRefreshHash).delete();
        await tx.on(noSessionKeys()).insert(newNoSessionKey(key));
        await tx.on(refreshTokens()).insert(newRefresh(refresh));
        return true;
      }),

    revokeFamily: (familyId) =>
      db.transaction(async (tx) => {
        await tx.on(refreshTokens()).where('family_id', familyId).delete();
        return tx.on(noSessionKeys()).where('family_id', familyId).delete();
      }),

    revokeForUser: (userId, options = {}) =>
      db.transaction(async (tx) => {
        const ending = options.sessions ?? 'all';
        let sessions = 0;
        if (ending !== 'none') {
          const query = tx.on(knex(SESSIONS.name)).delete().where('user_id', userId);
          if (typeof ending === 'object') query.andWhereNot('token_hash', ending.keep);
          sessions = await query;
        }
        // Keys on the sessions just ended went with them (ON DELETE CASCADE).
        const keys = await fenceUser(tx, knex, userId);
        // A kept session keeps its keys: they move past the fence with it.
        if (typeof ending === 'object') {
          await tx
            .on(knex('apikeys'))
            .where('session_hash', ending.keep)
            .update({ credential_generation: knex('users').select('credential_generation').where('user_id', userId) });
        }
        return { sessions, keys };
      }),
  };
}

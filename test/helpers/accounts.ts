/**
 * Helpers for the account-administration tests: sessions opened through the protocol, and API key
 * rows written straight into their tables (the API key actions come with their own issue) so that a
 * lock or a deletion can be seen to end them.
 */
import { createHash, randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { hashToken } from '../../src/domain/tokens.js';
import type { Store } from '../../src/store/index.js';
import { timeToDb } from '../../src/store/dialect.js';
import type { TestServer } from './server.js';

const DAY = 86_400_000;

/** Opens a session of `userId` through session-new and returns its token. */
export async function openSession(server: TestServer, userId: number, days = 7): Promise<string> {
  const reply = await server.call('session-new', {
    ip_address: '198.51.100.20',
    user_agent: 'test agent',
    user_id: userId,
    expires: days,
    extra_info_json: {},
  });
  assert.ok(reply.success, JSON.stringify(reply));
  return String(reply.response.session_token);
}

const hex = (): string => createHash('sha256').update(randomBytes(16)).digest('hex');

/**
 * One session-tied key (on `sessionToken`), one no-session key and its refresh token for `userId`,
 * valid for a day from `nowMs`.
 */
export async function insertKeyRows(store: Store, userId: number, sessionToken: string, nowMs: number): Promise<void> {
  const t = (ms: number): number | Date => timeToDb(store.dialect, ms);
  const common = {
    user_id: userId,
    user_role: 'authenticated',
    issuer: 'test',
    audience: 'test',
    subject: JSON.stringify(['/api']),
    apiversion: 1,
    ip_address: '198.51.100.20',
    issued: t(nowMs),
    not_valid_before: t(nowMs),
    expires: t(nowMs + DAY),
  };
  await store.knex('apikeys').insert({
    ...common,
    tkn_hash: hex(),
    session_hash: hashToken(sessionToken),
    user_agent: 'test agent',
  });
  const family = hex();
  const key = hex();
  await store.knex('apikeys_nosession').insert({ ...common, tkn_hash: key, family_id: family });
  await store.knex('refresh_tokens').insert({
    token_hash: hex(),
    family_id: family,
    apikey_hash: key,
    user_id: userId,
    issued: t(nowMs),
    not_valid_before: t(nowMs),
    expires: t(nowMs + DAY),
    rotated_at: null,
  });
}

/** How many rows of each table that holds user data belong to `userId`. */
export async function rowsOf(store: Store, userId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['users', 'sessions', 'apikeys', 'apikeys_nosession', 'refresh_tokens']) {
    const rows: Array<{ n: unknown }> = await store.knex(table).where('user_id', userId).count({ n: '*' });
    const [row] = rows;
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}

/** The stored row of a user, for checks of columns no action returns (previous_role). */
export async function storedUser(store: Store, userId: number): Promise<Record<string, unknown> | undefined> {
  return (await store.knex('users').where('user_id', userId).first()) as Record<string, unknown> | undefined;
}

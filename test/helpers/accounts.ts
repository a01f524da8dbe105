/**
 * Accounts for action tests: sign-up through the real protocol, sessions, a hash-queue that counts, and
 * API key rows written straight into their tables (the API key actions come with their own issue) so
 * that a lock, a deletion or a password change can be seen to end them.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { hashToken } from '../../src/domain/tokens.js';
import type { Store } from '../../src/services/store/index.js';
import { createHashQueue } from '../../src/accounts/password-hashing.js';
import type { HashQueue } from '../../src/accounts/password-hashing.js';
import { timeToDb } from '../../src/services/store/dialect.js';
import type { TestServer } from './server.js';
import { sqlOf } from './sql.js';

export const GOOD_PASSWORD = 'plinth-orchard-vapour-42';
const DAY = 86_400_000;

/** Signs up through user-new; returns the new user id. */
export async function signUp(
  server: TestServer,
  email: string,
  password = GOOD_PASSWORD,
  fullName = 'Jane Doe',
): Promise<number> {
  const reply = await server.call('user-new', { email, password, full_name: fullName });
  assert.equal(reply.success, true, JSON.stringify(reply));
  return reply.response.user_id;
}

/** Marks an account verified and active, as user-set-emailverified does. */
export async function markVerified(server: TestServer, userId: number): Promise<void> {
  await sqlOf(server.app.store)('users')
    .where('user_id', userId)
    .update({
      email_verified: true,
      is_active: true,
      user_role: 'authenticated',
      last_updated: timeToDb(server.app.store.dialect, server.clock.now()),
    });
}

/** A verified user ready to log in. */
export async function verifiedUser(server: TestServer, email: string, password = GOOD_PASSWORD): Promise<number> {
  const userId = await signUp(server, email, password);
  await markVerified(server, userId);
  return userId;
}

/** Opens a session (of the anonymous user unless a user is given) through session-new; returns its token. */
export async function openSession(server: TestServer, userId: number | null = null, days = 7): Promise<string> {
  const reply = await server.call('session-new', {
    ip_address: '198.51.100.20',
    user_agent: 'test agent',
    user_id: userId,
    expires: days,
    extra_info_json: {},
  });
  assert.ok(reply.success, JSON.stringify(reply));
  return reply.response.session_token;
}

/** The user's row as stored (the lock-out columns included). */
export async function storedUser(server: TestServer, userId: number): Promise<Record<string, unknown>> {
  const row = (await sqlOf(server.app.store)('users').where('user_id', userId).first()) as
    Record<string, unknown> | undefined;
  assert.ok(row, `user ${userId} exists`);
  return row;
}

/** A real hash queue that also counts the hashes and verifications it ran. */
export function countingQueue(): { readonly queue: HashQueue; runs(): number } {
  const inner = createHashQueue({ concurrency: 4, maxWaiting: 64 });
  let runs = 0;
  return {
    queue: {
      run: (task) => {
        runs++;
        return inner.run(task);
      },
      get running() {
        return inner.running;
      },
      get waiting() {
        return inner.waiting;
      },
    },
    runs: () => runs,
  };
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
  await sqlOf(store)('apikeys').insert({
    ...common,
    tkn_hash: hex(),
    session_hash: hashToken(sessionToken),
    user_agent: 'test agent',
  });
  const family = hex();
  const key = hex();
  await sqlOf(store)('apikeys_nosession').insert({ ...common, tkn_hash: key, family_id: family });
  await sqlOf(store)('refresh_tokens').insert({
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
    const rows: Array<{ n: unknown }> = await sqlOf(store)(table).where('user_id', userId).count({ n: '*' });
    const [row] = rows;
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}

/** The stored row of a user, or undefined, for checks of columns no action returns (previous_role). */
export async function storedRow(store: Store, userId: number): Promise<Record<string, unknown> | undefined> {
  return (await sqlOf(store)('users').where('user_id', userId).first()) as Record<string, unknown> | undefined;
}

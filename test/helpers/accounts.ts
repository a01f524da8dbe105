/** Accounts for action tests: sign-up through the real protocol, sessions, and a hash-queue that counts. */
import assert from 'node:assert/strict';
import { createHashQueue } from '../../src/passwords/hash-queue.js';
import type { HashQueue } from '../../src/passwords/hash-queue.js';
import { timeToDb } from '../../src/store/dialect.js';
import type { TestServer } from './server.js';

export const GOOD_PASSWORD = 'plinth-orchard-vapour-42';

/** Signs up through user-new; returns the new user id. */
export async function signUp(
  server: TestServer,
  email: string,
  password = GOOD_PASSWORD,
  fullName = 'Jane Doe',
): Promise<number> {
  const reply = await server.call('user-new', { email, password, full_name: fullName });
  assert.equal(reply.success, true, JSON.stringify(reply));
  return Number(reply.response.user_id);
}

/** Marks an account verified and active, as user-set-emailverified does. */
export async function markVerified(server: TestServer, userId: number): Promise<void> {
  await server.app.store
    .knex('users')
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

/** Opens a session (of the anonymous user unless a user is given); returns its token. */
export async function openSession(server: TestServer, userId: number | null = null): Promise<string> {
  const reply = await server.call('session-new', {
    ip_address: '192.0.2.10',
    user_agent: 'test browser',
    user_id: userId,
    expires: 1,
    extra_info_json: {},
  });
  assert.ok(reply.success);
  return String(reply.response.session_token);
}

/** The user's row as stored (the lock-out columns included). */
export async function storedUser(server: TestServer, userId: number): Promise<Record<string, unknown>> {
  const row = (await server.app.store.knex('users').where('user_id', userId).first()) as
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

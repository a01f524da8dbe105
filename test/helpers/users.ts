/**
 * Users for tests, written straight into the users table (sign-up comes with the account actions).
 * Ids are given explicitly, far above the seeded 1–3, and times are bound as the store binds them, so
 * this works on every database.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/services/store/index.js';
import { timeToDb } from '../../src/services/store/dialect.js';
import { sqlOf } from './sql.js';

export interface TestUser {
  readonly userId: number;
  readonly role: string;
  readonly active?: boolean;
  readonly email?: string;
  readonly fullName?: string;
  readonly verified?: boolean;
  readonly extraInfo?: unknown;
  /** A real hash (e.g. from `testHasher`) for users who must prove their password. */
  readonly passwordHash?: string;
}

export async function insertUsers(store: Store, users: readonly TestUser[], nowMs = Date.now()): Promise<void> {
  const now = timeToDb(store.dialect, nowMs);
  await sqlOf(store)('users').insert(
    users.map((user) => ({
      user_id: user.userId,
      system_id: randomUUID(),
      full_name: user.fullName ?? `Test user ${user.userId}`,
      email: user.email ?? `user${user.userId}@example.org`,
      password: user.passwordHash ?? 'not a hash: nobody logs in as this user',
      email_verified: user.verified ?? true,
      is_active: user.active ?? true,
      user_role: user.role,
      extra_info: JSON.stringify(user.extraInfo ?? {}),
      created_on: now,
      last_updated: now,
      failed_login_tries: 0,
    })),
  );
}

/** Changes a user's role or activity as a lock, an unlock or a role change would. */
export async function updateUser(
  store: Store,
  userId: number,
  changes: { readonly role?: string; readonly active?: boolean },
): Promise<void> {
  await sqlOf(store)('users')
    .where('user_id', userId)
    .update({
      ...(changes.role === undefined ? {} : { user_role: changes.role }),
      ...(changes.active === undefined ? {} : { is_active: changes.active }),
    });
}

/**
 * The three fixed accounts of a new database (docs/design.md#fixed-accounts-and-new-users): 1 the superuser, 2 the
 * anonymous user, 3 a locked dummy whose hash equalises the timing of checks on unknown users.
 */
import { userInfo } from 'node:os';
import type { Clock, PasswordHasher, Random } from '../../domain/ports.js';
import { uuidV4, newToken } from '../../domain/tokens.js';
import { ANONYMOUS_ID, DUMMY_ID, SUPERUSER_ID } from '../../domain/fixed-accounts.js';
import type { NewUser, UserRepo } from './users.js';

export interface AdminCredentials {
  readonly email?: string;
  readonly password?: string;
}

export interface SeedResult {
  /** Set when this start created the superuser; `generated` says which parts we made up. */
  readonly created: null | {
    readonly email: string;
    readonly password: string;
    readonly generated: { readonly email: boolean; readonly password: boolean };
  };
}

function osUser(): string {
  try {
    const name = userInfo().username.toLowerCase();
    return /^[a-z0-9._-]{1,64}$/.test(name) ? name : 'authsvc';
  } catch {
    return 'authsvc'; // no passwd entry (some containers)
  }
}

export async function seedFixedAccounts(
  users: UserRepo,
  deps: { clock: Clock; random: Random; hasher: PasswordHasher },
  admin: AdminCredentials,
): Promise<SeedResult> {
  const now = deps.clock.now();
  // Hash only for accounts still missing: a seeded database costs nothing at start-up.
  const ensure = async (userId: number, make: () => Promise<NewUser>): Promise<boolean> =>
    (await users.byId(userId)) === null && users.insertIfAbsent(await make());

  const email = (admin.email ?? `${osUser()}@localhost`).normalize('NFKC').toLowerCase();
  const password = admin.password ?? deps.random.bytes(18).toString('base64url');
  // Explicit ids, in order; then the database's own counter is moved past them, so later users start
  // at 4 (docs/design.md#postgresql-fixed-ids-and-the-sequence). Inserts ignore a row that is already there: two
  // instances seeding together both succeed, and only the one whose row was stored reports that it created the
  // superuser.
  const createdSuperuser = await ensure(SUPERUSER_ID, async () => ({
    userId: SUPERUSER_ID,
    systemId: uuidV4(deps.random),
    fullName: 'Superuser account',
    email,
    passwordHash: await deps.hasher.hash(password),
    emailVerified: true,
    isActive: true,
    userRole: 'superuser',
    extraInfo: { provenance: 'auto-created', type: 'system-user' },
    now,
  }));
  // Accounts nobody logs in to: their random passwords are never kept.
  const systemAccount = async (
    userId: number,
    fullName: string,
    email: string,
    role: string,
    active: boolean,
    type: string,
  ): Promise<NewUser> => ({
    userId,
    systemId: uuidV4(deps.random),
    fullName,
    email,
    passwordHash: await deps.hasher.hash(newToken(deps.random)),
    emailVerified: active,
    isActive: active,
    userRole: role,
    extraInfo: { provenance: 'auto-created', type },
    now,
  });
  await ensure(ANONYMOUS_ID, () =>
    systemAccount(
      ANONYMOUS_ID,
      'The systemwide anonymous user',
      'anonuser@localhost',
      'anonymous',
      true,
      'system-user',
    ),
  );
  await ensure(DUMMY_ID, () =>
    systemAccount(DUMMY_ID, 'The systemwide locked user', 'dummyuser@localhost', 'locked', false, 'locked-user'),
  );
  await users.reserveFixedIds(DUMMY_ID);
  return {
    created: createdSuperuser
      ? { email, password, generated: { email: admin.email === undefined, password: admin.password === undefined } }
      : null,
  };
}

/**
 * The one password check (docs/design.md#one-credential-check): user-login, user-passcheck(-nosession),
 * user-changepass(-nosession), user-delete and user-edit's email change all verify through it, so every
 * wrong guess counts toward the lock-out, waits out the back-off, and a locked account refuses. Neither the answer nor its timing may tell whether an account exists, so
 * every failing path does the same work: one lookup, exactly one password verification with the
 * current parameters (a throwaway hash when there is no usable one), and one failure count. The count
 * of an unknown address, or of a right password on an account that cannot log in, lands on the locked
 * dummy account 3: the same UPDATE as a real failure, with its commit, so the database's write cost
 * (measured at 0.6 ms on SQLite to 2.9 ms on MariaDB) is paid on every path. The reason is only in
 * `failure_reason`; `user_id` is never given on failure.
 */
import type { AuditSink } from '../log/audit.js';
import { DUMMY_ID } from '../domain/fixed-accounts.js';
import type { Clock, LoginBackoff } from '../domain/ports.js';
import type { PasswordService } from './passwords.js';
import type { RequestId } from '../protocol/index.js';
import type { Store } from '../services/store/index.js';
import type { FactorMethods, UserRecord } from '../services/store/index.js';

/** What the check uses: the login records, the hasher, the lock-out settings, the clock and the audit. */
export interface CredentialDeps {
  readonly clock: Clock;
  readonly store: Pick<Store, 'users' | 'factors'>;
  readonly audit: AuditSink;
  readonly passwords: Pick<PasswordService, 'hasher'>;
  readonly settings: { readonly userLockTries: number; readonly userLockTimeSeconds: number };
  /** Slows failed checks down, per presented identity (docs/design.md#lock-out-and-login-back-off). */
  readonly loginBackoff: LoginBackoff;
}

/** The request, for the audit events. */
export interface CredentialRequest {
  readonly reqid: RequestId;
  readonly clientIp: string;
  /** The action that checks the password, for the audit. */
  readonly action: string;
  /** The end user's user agent when the action has a session, for the user's history. */
  readonly userAgent?: string;
}

/** Why a check failed; each action shows all three with one end-user message. */
export type CredentialFailure = 'wrong_credentials' | 'temporarily_locked' | 'user_inactive';

/**
 * A right password on a usable account. `factors` is null for a user without a second factor; for one with a
 * factor it lists how the user can prove it, and the check is not yet a success: the failure counter and the
 * back-off stay as they were until a second factor is proved (docs/design.md#second-factors).
 */
export type CredentialCheck =
  | { readonly ok: true; readonly user: UserRecord; readonly factors: FactorMethods | null }
  | {
      readonly ok: false;
      readonly code: CredentialFailure;
      /** The account the failure concerns, the dummy when none: only for the user's history, never answered. */
      readonly account: number;
    };

/** Whose password: by email, by id (a session's user), or by id and email, both of which must match. */
export type Who =
  { readonly email: string } | { readonly userId: number } | { readonly userId: number; readonly email: string };

/**
 * The back-off's identity: the presented email (existing or not, so the wait reveals nothing), or the
 * session's user for the actions that present no email.
 */
const identityOf = (who: Who): string => ('email' in who ? who.email : `#${who.userId}`);

export async function checkCredentials(
  deps: CredentialDeps,
  who: Who,
  password: string,
  meta: CredentialRequest,
): Promise<CredentialCheck> {
  const check = await verifyCredentials(deps, who, password, meta);
  auditCheck(deps, who, meta, check);
  // A wrong password (or any attempt on a locked account) waits; a right one, even on an inactive
  // account, ends the run: it was not guessing. With a second factor only the second step ends it.
  if (check.ok ? check.factors === null : check.code === 'user_inactive')
    await deps.loginBackoff.succeeded(identityOf(who));
  else if (!check.ok) await deps.loginBackoff.failed(identityOf(who));
  return check;
}

/**
 * Every password check is an event: operators see guessing (login.failed at warn) whether or not the
 * account exists; the presented email is written only as a digest, the reason only to the audit.
 */
function auditCheck(deps: CredentialDeps, who: Who, meta: CredentialRequest, check: CredentialCheck): void {
  const ip = meta.clientIp;
  const userAgent = meta.userAgent === undefined ? {} : { userAgent: meta.userAgent };
  if (check.ok) {
    deps.audit.record({
      event: check.factors === null ? 'login.succeeded' : 'login.second-factor-required',
      reqid: meta.reqid,
      subject: { userId: check.user.userId, ip, ...userAgent },
      detail: { action: meta.action },
    });
    return;
  }
  deps.audit.record({
    event: 'login.failed',
    reqid: meta.reqid,
    // A failure by email goes to the account's history, or the dummy's: the same write either way.
    subject:
      'email' in who
        ? { email: who.email, ip, account: check.account, ...userAgent }
        : { userId: who.userId, ip, ...userAgent },
    detail: { action: meta.action, reason: check.code },
  });
}

async function verifyCredentials(
  deps: CredentialDeps,
  who: Who,
  password: string,
  meta: CredentialRequest,
): Promise<CredentialCheck> {
  const { hasher } = deps.passwords;
  const now = deps.clock.now();
  const { userLockTries, userLockTimeSeconds } = deps.settings;
  const countFailure = (userId: number) =>
    deps.store.users.recordFailure(userId, now, userLockTries, userLockTimeSeconds * 1000);
  /** A failure that must not count against an account: the same write, on the dummy. */
  const uncounted = async (code: 'wrong_credentials' | 'user_inactive', account: number): Promise<CredentialCheck> => {
    await countFailure(DUMMY_ID);
    return { ok: false, code, account };
  };

  const found =
    'userId' in who
      ? await deps.store.users.credentialsById(who.userId, 'email' in who ? who.email : undefined)
      : await deps.store.users.credentialsByEmail(who.email);
  if (found === null) {
    await hasher.verifyDummy(password);
    return uncounted('wrong_credentials', DUMMY_ID);
  }
  const { user, passwordHash } = found;
  const fail = async (): Promise<CredentialCheck> => ({
    ok: false,
    code: (await countFailedCheck(deps, user.userId, meta)) ? 'temporarily_locked' : 'wrong_credentials',
    account: user.userId,
  });

  // While a temporary lock lasts, even the right password fails (and the attempt still counts).
  if (user.lockedUntil !== null && user.lockedUntil > now) {
    await hasher.verifyDummy(password);
    return fail();
  }
  const verified = await hasher.verify(passwordHash, password);
  if (!verified.ok) return fail();
  // The right password, but the account cannot be used: not a guess, so the account's counter stays.
  // An unverified address alone does not stop it: after an email change the address waits for its
  // confirmation while the account stays usable (docs/design.md#email-changes).
  if (!user.isActive || user.userRole === 'locked') return uncounted('user_inactive', user.userId);
  if (verified.needsRehash) await rehash(deps, user.userId, password, now);
  const methods = await deps.store.factors.methods(user.userId);
  if (methods.totp || methods.passkey) return { ok: true, user, factors: methods };
  await deps.store.users.recordSuccess(user.userId, now);
  return { ok: true, user, factors: null };
}

/**
 * Counts a failed check of a user's password or second factor toward the temporary lock, and records the lock when
 * this failure set it. True when the account is locked now.
 */
export async function countFailedCheck(
  deps: CredentialDeps,
  userId: number,
  meta: CredentialRequest,
): Promise<boolean> {
  const now = deps.clock.now();
  const { userLockTries, userLockTimeSeconds } = deps.settings;
  const counted = await deps.store.users.recordFailure(userId, now, userLockTries, userLockTimeSeconds * 1000);
  if (counted?.lockedNow === true) {
    deps.audit.record({
      event: 'account.locked-out',
      reqid: meta.reqid,
      subject: { userId, ip: meta.clientIp },
      detail: { failed_login_tries: counted.count, locked_for_s: userLockTimeSeconds },
    });
  }
  return counted?.lockedUntil !== null && counted?.lockedUntil !== undefined && counted.lockedUntil > now;
}

/** Stores a hash with the current parameters; a busy hash queue only postpones it to the next login. */
async function rehash(deps: CredentialDeps, userId: number, password: string, now: number): Promise<void> {
  try {
    await deps.store.users.setPasswordHash(userId, await deps.passwords.hasher.hash(password), now);
  } catch (error) {
    if (!(error instanceof Error && error.name === 'UnavailableError')) throw error;
  }
}

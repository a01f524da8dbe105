/** user-validatepass, user-changepass(-nosession), user-resetpass(-nosession). */
import { checkCredentials } from '../accounts/credentials.js';
import { STEP_UP, stepUpFresh } from '../accounts/second-step.js';
import type { CredentialFailure } from '../accounts/credentials.js';
import { normaliseFullName } from '../accounts/full-name.js';
import { normaliseEmail } from '../protocol/index.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import type { Credentials } from '../services/store/index.js';
import { defineAction } from './define.js';
import type { passwordActions } from '../protocol/actions/password.js';
import type { Deps, FamilyHandlers, Meta } from './define.js';

/** The spec's defaults for the two thresholds the request may set (docs/design.md#passwords). */
const VALIDATE_DEFAULTS = { minPassLength: 12, maxUnsafeSimilarity: 30 } as const;

const userValidatepass = defineAction('user-validatepass', {
  messages: {
    ok: 'Your password is acceptable.',
    failures: { insecure_password: 'Your password is not acceptable.' },
  },
  async handle(deps, input) {
    const server = deps.passwords.policy;
    const verdict = await deps.passwords.check(
      input.password,
      { email: input.email, fullName: input.full_name },
      {
        minPassLength: input.min_pass_length ?? VALIDATE_DEFAULTS.minPassLength,
        maxUnsafeSimilarity: input.max_unsafe_similarity ?? VALIDATE_DEFAULTS.maxUnsafeSimilarity,
        maxCharFrequency: input.max_character_frequency ?? server.maxCharFrequency,
        minPwnedMatches: input.min_pwned_matches ?? server.minPwnedMatches,
      },
    );
    return verdict.ok ? ok({}) : fail('insecure_password', {}, verdict.messages);
  },
});

const INSECURE_NEW =
  'The new password you entered is insecure. It must be at least 12 characters long and be sufficiently complex.';
const CURRENT_DID_NOT_MATCH = 'Your current password did not match the stored password.';
const SAME_AS_OLD = 'Your new password cannot be the same as your old password.';
const CHANGED = 'Password changed successfully.';
const LOGGED_OUT = 'For security purposes, you have been logged out of all other sessions.';

/**
 * Replaces a user's password and ends what the old one opened (docs/design.md#superuser-lock-and-what-ends-with-it):
 * the user's sessions (all, or all but `keepSessionHash`) and their no-session API keys and refresh tokens, behind the
 * revocation fence (docs/design.md#revocation-fence).
 */
async function replacePassword(
  deps: Deps,
  meta: Meta,
  userId: number,
  newPassword: string,
  keepSessionHash: string | null,
  event: 'password.changed' | 'password.reset',
): Promise<void> {
  const now = deps.clock.now();
  await deps.store.users.setPasswordHash(userId, await deps.passwords.hasher.hash(newPassword), now);
  const { sessions, keys } = await deps.store.apiKeys.revokeForUser(userId, {
    sessions: keepSessionHash === null ? 'all' : { keep: keepSessionHash },
  });
  deps.audit.record({
    event,
    reqid: meta.reqid,
    subject: { userId, ip: meta.clientIp },
    detail: { sessions_ended: sessions, keys_revoked: keys },
  });
}

type ChangeCode = CredentialFailure | 'password_unchanged' | 'insecure_password' | 'step_up_required';

/** Every failed check of the current password shows one message (docs/design.md#one-credential-check). */
const changeMessages = {
  wrong_credentials: CURRENT_DID_NOT_MATCH,
  temporarily_locked: CURRENT_DID_NOT_MATCH,
  user_inactive: CURRENT_DID_NOT_MATCH,
  password_unchanged: SAME_AS_OLD,
  insecure_password: INSECURE_NEW,
  step_up_required: STEP_UP,
} as const;

interface ChangeInput {
  readonly user_id: number;
  readonly full_name: string;
  readonly email: string;
  readonly current_password: string;
  readonly new_password: string;
}

/**
 * Both changepass actions once the session (if any) is checked: the current password goes through the
 * one credential check, for the account matching both user_id and email.
 */
async function changePassword(
  deps: Deps,
  input: ChangeInput,
  meta: Meta,
  keepSessionHash: string | null,
): Promise<Result<{ user_id: number | null; email: string | null }, ChangeCode>> {
  const none = { user_id: null, email: null };
  const who = { userId: input.user_id, email: normaliseEmail(input.email) };
  const check = await checkCredentials(deps, who, input.current_password, meta);
  if (!check.ok) return fail(check.code, none);
  const { user } = check;
  // With a second factor, the session must have proved it lately; the no-session action has no session that could
  // (docs/design.md#step-up).
  if (check.factors !== null && !(await stepUpFresh(deps, user.userId, keepSessionHash)))
    return fail('step_up_required', none);
  if (input.new_password === input.current_password) return fail('password_unchanged', none);
  const verdict = await deps.passwords.check(input.new_password, {
    email: user.email,
    fullName: normaliseFullName(input.full_name),
  });
  if (!verdict.ok) return fail('insecure_password', none, [...verdict.messages, INSECURE_NEW]);
  await replacePassword(deps, meta, user.userId, input.new_password, keepSessionHash, 'password.changed');
  return ok({ user_id: user.userId, email: user.email }, [CHANGED, LOGGED_OUT]);
}

const userChangepass = defineAction('user-changepass', {
  messages: {
    ok: CHANGED,
    failures: { ...changeMessages, session_not_found: 'Your session is not valid. Please log in again.' },
  },
  async handle(deps, input, meta) {
    const tokenHash = hashToken(input.session_token);
    const session = await deps.store.sessions.find(tokenHash, deps.clock.now());
    if (session === null || session.userId !== input.user_id) {
      await deps.passwords.hasher.verifyDummy(input.current_password);
      return fail('session_not_found', { user_id: null, email: null });
    }
    return changePassword(deps, input, meta, tokenHash);
  },
});

const userChangepassNosession = defineAction('user-changepass-nosession', {
  messages: { ok: CHANGED, failures: changeMessages },
  handle: (deps, input, meta) => changePassword(deps, input, meta, null),
});

type ResetCode = 'password_unchanged' | 'insecure_password';

/** Both resetpass actions once the account is found: the new password must differ and pass the policy. */
async function resetPassword(
  deps: Deps,
  found: Credentials,
  newPassword: string,
  meta: Meta,
  insecureMessage: string,
): Promise<Result<Record<string, never>, ResetCode>> {
  // Not a credential check (docs/design.md#one-credential-check): the frontend has already checked the
  // emailed token, so whoever gets here controls the address; this only refuses reusing the old password.
  if ((await deps.passwords.hasher.verify(found.passwordHash, newPassword)).ok) return fail('password_unchanged');
  const verdict = await deps.passwords.check(newPassword, {
    email: found.user.email,
    fullName: found.user.fullName ?? '',
  });
  if (!verdict.ok) return fail('insecure_password', {}, [insecureMessage, ...verdict.messages]);
  await replacePassword(deps, meta, found.user.userId, newPassword, null, 'password.reset');
  await deps.store.users.clearForgotPass(found.user.userId); // a new forgot-pass mail may follow at once
  return ok({}, [CHANGED]);
}

const userResetpass = defineAction('user-resetpass', {
  messages: {
    ok: CHANGED,
    failures: {
      session_not_found: 'Invalid session token for password reset request.',
      user_not_found: 'Invalid user for password reset request.',
      password_unchanged: SAME_AS_OLD,
      insecure_password: 'Insecure password for password reset request.',
    },
  },
  async handle(deps, input, meta) {
    const session = await deps.store.sessions.find(hashToken(input.session_token), deps.clock.now());
    const found = await deps.store.users.credentialsByEmail(normaliseEmail(input.email_address));
    // An unverified address (a changed email not yet confirmed) never receives a reset (docs/design.md#email-changes).
    if (session === null || found === null || !found.user.isActive || !found.user.emailVerified) {
      await deps.passwords.hasher.verifyDummy(input.new_password);
      return fail(session === null ? 'session_not_found' : 'user_not_found');
    }
    return resetPassword(deps, found, input.new_password, meta, 'Insecure password for password reset request.');
  },
});

const userResetpassNosession = defineAction('user-resetpass-nosession', {
  messages: {
    ok: CHANGED,
    failures: {
      required_active_mismatch: 'Invalid user for password reset request.',
      password_unchanged: SAME_AS_OLD,
      insecure_password: 'Insecure new password for password reset request.',
    },
  },
  async handle(deps, input, meta) {
    const found = await deps.store.users.credentialsByEmail(normaliseEmail(input.email_address));
    if (found === null || found.user.isActive !== input.required_active) {
      await deps.passwords.hasher.verifyDummy(input.new_password);
      return fail('required_active_mismatch');
    }
    return resetPassword(deps, found, input.new_password, meta, 'Insecure new password for password reset request.');
  },
});

export const passwordHandlers = {
  'user-validatepass': userValidatepass,
  'user-changepass': userChangepass,
  'user-changepass-nosession': userChangepassNosession,
  'user-resetpass': userResetpass,
  'user-resetpass-nosession': userResetpassNosession,
} satisfies FamilyHandlers<typeof passwordActions>;

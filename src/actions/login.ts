/**
 * user-login, user-logout, user-passcheck, user-passcheck-nosession (docs/design.md#sessions-and-the-purge,
 * docs/design.md#lock-out-and-login-back-off).
 */
import { checkCredentials } from '../accounts/credentials.js';
import type { CredentialCheck } from '../accounts/credentials.js';
import { normaliseEmail } from '../protocol/index.js';
import { fail, ok } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import { defineAction } from './define.js';
import type { loginActions } from '../protocol/actions/login.js';
import type { Deps, FamilyHandlers } from './define.js';
import { issueTicket, methodsOf } from '../accounts/second-step.js';

/** One message for every failure, the temporary lock included: nothing reveals which accounts exist. */
const DID_NOT_WORK = "Sorry, that user ID and password combination didn't work.";

/** The right password of a user with a second factor: the frontend asks for the second step. */
const SECOND_STEP = 'Please finish signing in with your authenticator app, a recovery code or a passkey.';

/** A user of an `mfarequired` role without a factor: the frontend has them add one first. */
const ENROL_FIRST =
  'Your account needs a second factor: please set up an authenticator app or a passkey to finish signing in.';

const failures = {
  wrong_credentials: DID_NOT_WORK,
  temporarily_locked: DID_NOT_WORK,
  user_inactive: DID_NOT_WORK,
  second_factor_required: SECOND_STEP,
  second_factor_enrollment_required: ENROL_FIRST,
} as const;

type Verified = { user_id: number | null; user_role: string | null; login_ticket?: string; methods?: string[] };

/**
 * The check's audit event is recorded by checkCredentials. A user with a second factor gets a login ticket bound to
 * the presented session (null: none) instead of a success (docs/design.md#second-factors).
 */
async function answer(deps: Deps, check: CredentialCheck, sessionHash: string | null, origin: string) {
  if (!check.ok) return fail(check.code, { user_id: null, user_role: null });
  if (check.factors !== null) {
    const ticket = await issueTicket(deps, check.user, sessionHash, origin);
    return fail('second_factor_required', {
      user_id: null,
      user_role: null,
      login_ticket: ticket,
      methods: methodsOf(check.factors),
    });
  }
  // The ticket of a user without a factor allows only adding a first one (docs/design.md#second-factors).
  if (deps.settings.mfaRequiredRoles.includes(check.user.userRole)) {
    const ticket = await issueTicket(deps, check.user, sessionHash, origin);
    return fail('second_factor_enrollment_required', {
      user_id: null,
      user_role: null,
      login_ticket: ticket,
      methods: [],
    });
  }
  return ok<Verified>({ user_id: check.user.userId, user_role: check.user.userRole });
}

const userLogin = defineAction('user-login', {
  messages: { ok: 'Login successful.', failures: { ...failures, session_not_found: 'No session token provided.' } },
  async handle(deps, input, meta) {
    const tokenHash = hashToken(input.session_token);
    const session = await deps.store.sessions.find(tokenHash, deps.clock.now());
    if (session === null) {
      await deps.passwords.hasher.verifyDummy(input.password);
      return fail('session_not_found', { user_id: null, user_role: null });
    }
    const check = await checkCredentials(deps, { email: normaliseEmail(input.email) }, input.password, {
      ...meta,
      userAgent: session.userAgent,
    });
    // The presented session ends whatever the outcome (session fixation): the frontend opens a new one. A login
    // waiting for its second step keeps it until then: the ticket is bound to it.
    const answered = await answer(deps, check, tokenHash, 'user-login');
    if (
      answered.ok ||
      (answered.code !== 'second_factor_required' && answered.code !== 'second_factor_enrollment_required')
    )
      await deps.store.sessions.delete(tokenHash);
    return answered;
  },
});

const userPasscheckNosession = defineAction('user-passcheck-nosession', {
  messages: { ok: 'Verification successful.', failures },
  async handle(deps, input, meta) {
    const check = await checkCredentials(deps, { email: normaliseEmail(input.email) }, input.password, meta);
    return answer(deps, check, null, 'user-passcheck-nosession');
  },
});

const userPasscheck = defineAction('user-passcheck', {
  messages: {
    ok: 'Verification successful.',
    failures: { ...failures, session_not_found: 'No session token provided.' },
  },
  async handle(deps, input, meta) {
    const tokenHash = hashToken(input.session_token);
    const session = await deps.store.sessions.find(tokenHash, deps.clock.now());
    if (session === null) {
      await deps.passwords.hasher.verifyDummy(input.password);
      return fail('session_not_found', { user_id: null, user_role: null });
    }
    const check = await checkCredentials(deps, { userId: session.userId }, input.password, {
      ...meta,
      userAgent: session.userAgent,
    });
    return answer(deps, check, tokenHash, 'user-passcheck');
  },
});

const userLogout = defineAction('user-logout', {
  messages: {
    ok: 'Logout successful.',
    failures: {
      session_not_found: 'Logout failed. Invalid session_token for user_id.',
      session_user_mismatch: 'Logout failed. Invalid session_token for user_id.',
    },
  },
  async handle(deps, input, meta) {
    const tokenHash = hashToken(input.session_token);
    const session = await deps.store.sessions.find(tokenHash, deps.clock.now());
    // A failure names no user (the spec's None), not even the one that was sent.
    if (session === null) return fail('session_not_found', { user_id: null });
    if (session.userId !== input.user_id) return fail('session_user_mismatch', { user_id: null });
    // A concurrent logout may have deleted it first: logged out either way.
    await deps.store.sessions.delete(tokenHash);
    deps.audit.record({
      event: 'session.ended',
      reqid: meta.reqid,
      subject: { userId: input.user_id, ip: meta.clientIp },
      detail: { action: 'user-logout', sessions: 1 },
    });
    return ok({ user_id: input.user_id });
  },
});

export const loginHandlers = {
  'user-login': userLogin,
  'user-logout': userLogout,
  'user-passcheck': userPasscheck,
  'user-passcheck-nosession': userPasscheckNosession,
} satisfies FamilyHandlers<typeof loginActions>;

/**
 * Second factors (docs/design.md#second-factors): list, add and confirm an authenticator app (TOTP), recovery codes,
 * a login's second step, step-up, and removal. Every code is checked through accounts/second-step.ts, the second
 * factor's half of the one credential check.
 */
import {
  newRecoveryCodes,
  qrSvg,
  recoveryCodeHash,
  totpStepOf,
  totpUri,
  newTotpSecret,
} from '../accounts/second-factor.js';
import {
  STEP_UP,
  checkSecondStep,
  enrolmentTicket,
  stepUpFresh,
  steppedUp,
  verifySecondFactor,
} from '../accounts/second-step.js';
import type { EnrolmentTicket, Proof } from '../accounts/second-step.js';
import { checkSuperuserOver, initiatorMessages } from '../accounts/initiator.js';
import { fail, invalid, ok } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import { formatDateTime, formatOptionalDateTime } from '../protocol/index.js';
import type { factorActions } from '../protocol/actions/factors.js';
import type { FactorRecord, SessionRecord, UserRecord } from '../services/store/index.js';
import { defineAction } from './define.js';
import type { Deps, FamilyHandlers, Meta } from './define.js';

/** Factors (active and pending) one user may have. */
const MAX_FACTORS = 10;

/** Whether the user has as many factors as allowed (a pending TOTP factor does not count: a new one replaces it). */
export const atFactorLimit = (factors: readonly FactorRecord[]): boolean =>
  factors.filter((f) => f.active || f.kind !== 'totp').length >= MAX_FACTORS;

const DID_NOT_WORK = "Sorry, that code didn't work.";
const START_AGAIN = 'Sorry, that took too long. Please sign in again.';
export const NO_SESSION = 'No session token provided.';
export const NOT_YOURS = 'Sorry, that session is not yours.';

/** The presented session, which must be `userId`'s, with its user. */
export async function ownSession(
  deps: Deps,
  sessionToken: string,
  userId: number,
): Promise<
  | { readonly ok: true; readonly tokenHash: string; readonly session: SessionRecord; readonly user: UserRecord }
  | { readonly ok: false; readonly code: 'session_not_found' | 'session_user_mismatch' }
> {
  const tokenHash = hashToken(sessionToken);
  const found = await deps.store.sessions.findWithUser(tokenHash, deps.clock.now());
  if (found === null) return { ok: false, code: 'session_not_found' };
  if (found.session.userId !== userId) return { ok: false, code: 'session_user_mismatch' };
  return { ok: true, tokenHash, session: found.session, user: found.user };
}

type Enroller =
  | {
      readonly ok: true;
      readonly userId: number;
      readonly user: UserRecord;
      readonly tokenHash: string;
      /** The login's enrolment ticket, when the user enrols through one (docs/design.md#second-factors). */
      readonly ticket: EnrolmentTicket | null;
    }
  | { readonly ok: false; readonly code: 'session_not_found' | 'session_user_mismatch' | 'login_ticket_invalid' };

/** Who adds a factor: the owner of the session, or the user of a login's enrolment ticket on that login's session. */
export async function enroller(
  deps: Deps,
  input: { readonly user_id?: number; readonly session_token: string; readonly login_ticket?: string },
): Promise<Enroller | null> {
  if (input.login_ticket !== undefined) {
    const tokenHash = hashToken(input.session_token);
    if ((await deps.store.sessions.find(tokenHash, deps.clock.now())) === null)
      return { ok: false, code: 'session_not_found' };
    const ticket = await enrolmentTicket(deps, input.login_ticket, tokenHash);
    if (ticket === null) return { ok: false, code: 'login_ticket_invalid' };
    return { ok: true, userId: ticket.user.userId, user: ticket.user, tokenHash, ticket };
  }
  if (input.user_id === undefined) return null;
  const own = await ownSession(deps, input.session_token, input.user_id);
  return own.ok ? { ok: true, userId: input.user_id, user: own.user, tokenHash: own.tokenHash, ticket: null } : own;
}

/**
 * The proof a second step presents: a code for totp and recovery, a passkey response (to a challenge this session
 * asked for with `purpose`) for passkey; null when the item the method needs is missing.
 */
function proofOf(
  input: { readonly method: Proof['method']; readonly code?: string; readonly response?: Record<string, unknown> },
  sessionHash: string,
  purpose: 'secondfactor' | 'stepup',
): Proof | null {
  if (input.method === 'passkey')
    return input.response === undefined ? null : { method: 'passkey', response: input.response, sessionHash, purpose };
  return input.code === undefined ? null : { method: input.method, code: input.code };
}

/** The item a method needs, when missing. */
const missingProof = (method: Proof['method']) =>
  method === 'passkey'
    ? [{ param: 'response', problem: 'missing', required_type: 'dict' } as const]
    : [{ param: 'code', problem: 'missing', required_type: 'str' } as const];

/**
 * What follows a factor becoming active, for either kind: the proof just made counts as a step-up of the session, the
 * event is audited, and the answer is the factor (with its recovery codes when it is the first); when it was added
 * with a login's enrolment ticket, that login is finished as user-login-secondfactor would finish it (audited;
 * user-login's session ended; user_id and user_role).
 */
export async function factorAdded(
  deps: Deps,
  own: Extract<Enroller, { ok: true }>,
  kind: 'totp' | 'passkey',
  added: { readonly factor_id: string; readonly recovery_codes: readonly string[] },
  meta: Meta,
): Promise<{ factor_id: string; recovery_codes?: string[]; user_id?: number; user_role?: string }> {
  const first = added.recovery_codes.length > 0;
  await deps.store.factors.markStepUp(own.tokenHash, deps.clock.now());
  deps.audit.record({
    event: 'factor.added',
    reqid: meta.reqid,
    subject: { userId: own.userId, ip: meta.clientIp },
    detail: { kind, recovery_codes: first },
  });
  const answer = { factor_id: added.factor_id, ...(first ? { recovery_codes: [...added.recovery_codes] } : {}) };
  if (own.ticket === null) return answer;
  deps.audit.record({
    event: 'login.succeeded',
    reqid: meta.reqid,
    subject: { userId: own.userId, ip: meta.clientIp },
    detail: { action: meta.action },
  });
  if (own.ticket.origin === 'user-login') await deps.store.sessions.delete(own.tokenHash);
  return { ...answer, user_id: own.userId, user_role: own.user.userRole };
}

/** Neither user_id nor login_ticket: one of them says whose factor it is. */
export const WHOSE = [{ param: 'user_id', problem: 'missing', required_type: 'int' }] as const;

const userFactorList = defineAction('user-factor-list', {
  messages: {
    ok: 'Your second factors.',
    failures: { session_not_found: NO_SESSION, session_user_mismatch: NOT_YOURS },
  },
  async handle(deps, input) {
    const own = await ownSession(deps, input.session_token, input.user_id);
    if (!own.ok) return fail(own.code, { factors: null, recovery_codes_left: null });
    const [factors, methods] = await Promise.all([
      deps.store.factors.list(input.user_id),
      deps.store.factors.methods(input.user_id),
    ]);
    return ok({
      factors: factors.map((f) => ({
        factor_id: f.factorId,
        kind: f.kind,
        name: f.name,
        active: f.active,
        created: formatDateTime(f.created),
        last_used: formatOptionalDateTime(f.lastUsed),
      })),
      recovery_codes_left: methods.recoveryCodes,
    });
  },
});

const userTotpNew = defineAction('user-totp-new', {
  messages: {
    ok: 'Scan the QR code with your authenticator app, then enter a code it shows.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      step_up_required: STEP_UP,
      factor_limit: 'Sorry, you cannot add more second factors. Remove one first.',
      login_ticket_invalid: START_AGAIN,
    },
  },
  async handle(deps, input) {
    const none = { factor_id: null, secret: null, otpauth_uri: null, qr_svg: null };
    const own = await enroller(deps, input);
    if (own === null) return invalid([...WHOSE], none);
    if (!own.ok) return fail(own.code, none);
    const userId = own.userId;
    if (own.ticket === null && !(await steppedUp(deps, userId, own.tokenHash))) return fail('step_up_required', none);
    const existing = await deps.store.factors.list(userId);
    if (atFactorLimit(existing)) return fail('factor_limit', none);
    const secret = newTotpSecret(deps.random);
    const factorId = deps.random.bytes(16).toString('base64url');
    const now = deps.clock.now();
    const added = await deps.store.factors.add({
      factorId,
      userId,
      kind: 'totp',
      name: input.name,
      active: false,
      created: now,
      lastUsed: null,
      secret: deps.secrets.seal(secret, deps.random.bytes(12)),
      lastStep: null,
      credentialId: null,
      publicKey: null,
      signCount: null,
      transports: null,
    });
    // The user was deleted since the session was read: its session went with it.
    if (added !== 'added') return fail('session_not_found', none);
    const uri = totpUri(secret, deps.settings.serverName, own.user.email);
    return ok({ factor_id: factorId, secret, otpauth_uri: uri, qr_svg: await qrSvg(uri) });
  },
});

const userTotpConfirm = defineAction('user-totp-confirm', {
  messages: {
    ok: 'Your authenticator app is set up.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      factor_not_found: 'Sorry, that authenticator app is not waiting to be set up. Please start again.',
      second_factor_wrong: DID_NOT_WORK,
      login_ticket_invalid: START_AGAIN,
    },
  },
  async handle(deps, input, meta) {
    const own = await enroller(deps, input);
    if (own === null) return invalid([...WHOSE], { factor_id: null });
    if (!own.ok) return fail(own.code, { factor_id: null });
    const userId = own.userId;
    const factor = await deps.store.factors.find(userId, input.factor_id);
    if (factor === null || factor.kind !== 'totp' || factor.active || factor.secret === null)
      return fail('factor_not_found', { factor_id: null });
    const secret = deps.secrets.open(factor.secret);
    const now = deps.clock.now();
    const step = secret === null ? null : totpStepOf(secret, input.code, now);
    if (step === null) {
      deps.audit.record({
        event: 'second-factor.failed',
        reqid: meta.reqid,
        subject: { userId, ip: meta.clientIp },
        detail: { action: meta.action, reason: 'second_factor_wrong', method: 'totp' },
      });
      return fail('second_factor_wrong', { factor_id: null });
    }
    // A login's ticket is spent first: of two confirmations racing on one ticket, one finishes the login.
    if (own.ticket !== null && !(await deps.store.factors.spendTicket(own.ticket.ticketHash)))
      return fail('login_ticket_invalid', { factor_id: null });
    const before = await deps.store.factors.methods(userId);
    const first = !before.totp && !before.passkey;
    const codes = first ? newRecoveryCodes(deps.random) : [];
    const hashes = codes.map((code) => recoveryCodeHash(code) ?? '');
    if (!(await deps.store.factors.activate(userId, input.factor_id, step, now, hashes)))
      return fail('factor_not_found', { factor_id: null });
    return ok(await factorAdded(deps, own, 'totp', { factor_id: input.factor_id, recovery_codes: codes }, meta));
  },
});

const userLoginSecondfactor = defineAction('user-login-secondfactor', {
  messages: {
    ok: 'Login successful.',
    failures: {
      session_not_found: NO_SESSION,
      login_ticket_invalid: DID_NOT_WORK,
      second_factor_wrong: DID_NOT_WORK,
      temporarily_locked: DID_NOT_WORK,
    },
  },
  async handle(deps, input, meta) {
    const none = { user_id: null, user_role: null };
    const tokenHash = hashToken(input.session_token);
    const now = deps.clock.now();
    const proof = proofOf(input, tokenHash, 'secondfactor');
    if (proof === null) return invalid(missingProof(input.method), none);
    if ((await deps.store.sessions.find(tokenHash, now)) === null) return fail('session_not_found', none);
    const step = await checkSecondStep(deps, input.login_ticket, tokenHash, proof, meta);
    if (!step.ok) return fail(step.code, none);
    deps.audit.record({
      event: 'login.succeeded',
      reqid: meta.reqid,
      subject: { userId: step.user.userId, ip: meta.clientIp },
      detail: { action: meta.action },
    });
    // As user-login would have: its session ends (the frontend opens the user's own); user-passcheck's session is
    // the user's, and has just proved a factor.
    if (step.origin === 'user-login') await deps.store.sessions.delete(tokenHash);
    else if (step.origin === 'user-passcheck') await deps.store.factors.markStepUp(tokenHash, now);
    return ok({ user_id: step.user.userId, user_role: step.user.userRole });
  },
});

const userStepup = defineAction('user-stepup', {
  messages: {
    ok: 'Thank you: confirmed.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      no_second_factor: 'You have no second factor to confirm with.',
      second_factor_wrong: DID_NOT_WORK,
      temporarily_locked: DID_NOT_WORK,
    },
  },
  async handle(deps, input, meta) {
    const none = { stepped_up_until: null };
    const sessionHash = hashToken(input.session_token);
    const proof = proofOf(input, sessionHash, 'stepup');
    if (proof === null) return invalid(missingProof(input.method), none);
    const own = await ownSession(deps, input.session_token, input.user_id);
    if (!own.ok) return fail(own.code, none);
    const methods = await deps.store.factors.methods(input.user_id);
    if (!methods.totp && !methods.passkey) return fail('no_second_factor', none);
    const verified = await verifySecondFactor(deps, own.user, proof, meta);
    if (!verified.ok) return fail(verified.code, none);
    const now = deps.clock.now();
    if (!(await deps.store.factors.markStepUp(own.tokenHash, now))) return fail('session_not_found', none);
    return ok({ stepped_up_until: formatDateTime(now + deps.settings.stepUpWindowSeconds * 1000) });
  },
});

const userFactorDelete = defineAction('user-factor-delete', {
  messages: {
    ok: 'The second factor was removed.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      step_up_required: STEP_UP,
      factor_not_found: 'Sorry, you have no such second factor.',
    },
  },
  async handle(deps, input, meta) {
    const own = await ownSession(deps, input.session_token, input.user_id);
    if (!own.ok) return fail(own.code, { factor_id: null });
    if (!(await steppedUp(deps, input.user_id, own.tokenHash))) return fail('step_up_required', { factor_id: null });
    const factor = await deps.store.factors.find(input.user_id, input.factor_id);
    if (factor === null || !(await deps.store.factors.remove(input.user_id, input.factor_id)))
      return fail('factor_not_found', { factor_id: null });
    // A revocation (docs/design.md#revocation-fence): keys, refresh tokens, login tickets and the other sessions
    // issued while the factor guarded the account end; this session stays.
    if (factor.active) await deps.store.apiKeys.revokeForUser(input.user_id, { sessions: { keep: own.tokenHash } });
    const left = (await deps.store.factors.list(input.user_id)).filter((f) => f.active).length;
    deps.audit.record({
      event: 'factor.removed',
      reqid: meta.reqid,
      subject: { userId: input.user_id, ip: meta.clientIp },
      detail: { kind: factor.kind, factors_left: left },
    });
    return ok({ factor_id: input.factor_id });
  },
});

const userRecoverycodesNew = defineAction('user-recoverycodes-new', {
  messages: {
    ok: 'Here are your new recovery codes. The old ones no longer work.',
    failures: {
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      no_second_factor: 'You have no second factor: recovery codes come with the first one.',
      step_up_required: STEP_UP,
    },
  },
  async handle(deps, input, meta) {
    const own = await ownSession(deps, input.session_token, input.user_id);
    if (!own.ok) return fail(own.code, { recovery_codes: null });
    const methods = await deps.store.factors.methods(input.user_id);
    if (!methods.totp && !methods.passkey) return fail('no_second_factor', { recovery_codes: null });
    // The user has a factor (just read): only the session's proof is left to check.
    if (!(await stepUpFresh(deps, input.user_id, own.tokenHash)))
      return fail('step_up_required', { recovery_codes: null });
    const codes = newRecoveryCodes(deps.random);
    await deps.store.factors.replaceRecoveryCodes(
      input.user_id,
      codes.map((code) => recoveryCodeHash(code) ?? ''),
      deps.clock.now(),
    );
    deps.audit.record({
      event: 'recovery-codes.replaced',
      reqid: meta.reqid,
      subject: { userId: input.user_id, ip: meta.clientIp },
      detail: {},
    });
    return ok({ recovery_codes: codes });
  },
});

const NOT_AVAILABLE = 'Superuser session info not available for this request.';

const userFactorsReset = defineAction('user-factors-reset', {
  messages: {
    ok: "The user's second factors were removed.",
    failures: {
      not_superuser: "You don't have the privileges to remove other users' second factors.",
      self_lock: 'Remove your own second factors with user-factor-delete.',
      system_account: 'The system accounts have no second factors.',
      ...initiatorMessages(NOT_AVAILABLE),
      user_not_found: 'No such user.',
    },
  },
  async handle(deps, input, meta) {
    const none = { removed_factors: null };
    const target = input.target_userid;
    // Not on oneself: one's own factors need one's own step-up (user-factor-delete), even for a superuser.
    const allowed = await checkSuperuserOver(deps, input, target);
    if (!allowed.ok) return fail(allowed.code, none);
    if ((await deps.store.users.byId(target)) === null) return fail('user_not_found', none);
    const removed = await deps.store.factors.removeAll(target);
    // A revocation (docs/design.md#revocation-fence): whoever held the lost device holds nothing more.
    const ended = await deps.store.apiKeys.revokeForUser(target, { sessions: 'all' });
    deps.audit.record({
      event: 'factors.reset',
      reqid: meta.reqid,
      subject: { userId: target, ip: meta.clientIp },
      detail: { factors: removed, sessions_ended: ended.sessions },
    });
    return ok({ removed_factors: removed });
  },
});

export const factorHandlers = {
  'user-factor-list': userFactorList,
  'user-totp-new': userTotpNew,
  'user-totp-confirm': userTotpConfirm,
  'user-login-secondfactor': userLoginSecondfactor,
  'user-stepup': userStepup,
  'user-factor-delete': userFactorDelete,
  'user-recoverycodes-new': userRecoverycodesNew,
  'user-factors-reset': userFactorsReset,
} satisfies FamilyHandlers<typeof factorActions>;

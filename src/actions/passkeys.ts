/**
 * Passkeys (docs/design.md#passkeys): the options of a ceremony, registering a passkey, and a login with a passkey
 * alone. Every response is checked by accounts/passkeys.ts against the single-use challenge it answers; a passkey as
 * a second step or step-up goes through accounts/second-step.ts like the other factors.
 */
import { countFailedCheck } from '../accounts/credentials.js';
import {
  authenticationOptions,
  registrationOptions,
  verifyAssertion,
  verifyRegistration,
} from '../accounts/passkeys.js';
import { newRecoveryCodes, recoveryCodeHash } from '../accounts/second-factor.js';
import { STEP_UP, awaitingTicket, steppedUp } from '../accounts/second-step.js';
import { fail, invalid, ok } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import type { passkeyActions } from '../protocol/actions/passkeys.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import { NO_SESSION, NOT_YOURS, WHOSE, atFactorLimit, enroller, factorAdded, ownSession } from './factors.js';

const OFF = 'Sorry, passkeys are not available here.';
const DID_NOT_WORK = "Sorry, that passkey didn't work.";
const LIMIT = 'Sorry, you cannot add more second factors. Remove one first.';
const START_AGAIN = 'Sorry, that took too long. Please sign in again.';

/** The item a purpose needs, when missing. */
const needs = (param: 'user_id' | 'login_ticket') =>
  [{ param, problem: 'missing', required_type: param === 'user_id' ? 'int' : 'str' }] as const;

const userPasskeyOptions = defineAction('user-passkey-options', {
  messages: {
    ok: 'Follow your browser’s prompt.',
    failures: {
      passkeys_off: OFF,
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      step_up_required: STEP_UP,
      factor_limit: LIMIT,
      login_ticket_invalid: START_AGAIN,
      no_second_factor: 'You have no passkey.',
    },
  },
  async handle(deps, input) {
    const none = { options: null };
    const config = deps.passkeys;
    if (config === null) return fail('passkeys_off', none);
    const { purpose } = input;
    const answer = (options: object) => ok({ options: options as Record<string, never> });
    if (purpose === 'login') {
      const sessionHash = hashToken(input.session_token);
      if ((await deps.store.sessions.find(sessionHash, deps.clock.now())) === null)
        return fail('session_not_found', none);
      return answer(await authenticationOptions(deps, config, 'login', { sessionHash, userId: null }, []));
    }
    if (purpose === 'secondfactor') {
      if (input.login_ticket === undefined) return invalid(needs('login_ticket'), none);
      const sessionHash = hashToken(input.session_token);
      if ((await deps.store.sessions.find(sessionHash, deps.clock.now())) === null)
        return fail('session_not_found', none);
      const userId = await awaitingTicket(deps, input.login_ticket, sessionHash);
      if (userId === null) return fail('login_ticket_invalid', none);
      const factors = await deps.store.factors.list(userId);
      if (!factors.some((f) => f.kind === 'passkey' && f.active)) return fail('no_second_factor', none);
      return answer(await authenticationOptions(deps, config, 'secondfactor', { sessionHash, userId }, factors));
    }
    if (purpose === 'stepup') {
      if (input.user_id === undefined) return invalid(needs('user_id'), none);
      const own = await ownSession(deps, input.session_token, input.user_id);
      if (!own.ok) return fail(own.code, none);
      const factors = await deps.store.factors.list(input.user_id);
      if (!factors.some((f) => f.kind === 'passkey' && f.active)) return fail('no_second_factor', none);
      const asker = { sessionHash: own.tokenHash, userId: input.user_id };
      return answer(await authenticationOptions(deps, config, 'stepup', asker, factors));
    }
    // register: the session's user, or the user of a login's enrolment ticket (docs/design.md#second-factors).
    const own = await enroller(deps, input);
    if (own === null) return invalid([...WHOSE], none);
    if (!own.ok) return fail(own.code, none);
    if (own.ticket === null && !(await steppedUp(deps, own.userId, own.tokenHash)))
      return fail('step_up_required', none);
    const factors = await deps.store.factors.list(own.userId);
    if (atFactorLimit(factors)) return fail('factor_limit', none);
    return answer(await registrationOptions(deps, config, own.user, factors, own.tokenHash));
  },
});

const userPasskeyRegister = defineAction('user-passkey-register', {
  messages: {
    ok: 'Your passkey is set up.',
    failures: {
      passkeys_off: OFF,
      session_not_found: NO_SESSION,
      session_user_mismatch: NOT_YOURS,
      step_up_required: STEP_UP,
      factor_limit: LIMIT,
      passkey_invalid: "Sorry, that passkey couldn't be set up. Please try again.",
      login_ticket_invalid: START_AGAIN,
    },
  },
  async handle(deps, input, meta) {
    const none = { factor_id: null };
    const config = deps.passkeys;
    if (config === null) return fail('passkeys_off', none);
    const own = await enroller(deps, input);
    if (own === null) return invalid([...WHOSE], none);
    if (!own.ok) return fail(own.code, none);
    const { userId, ticket } = own;
    // Checked again here: a factor added since the options were made needs its step-up too.
    if (ticket === null && !(await steppedUp(deps, userId, own.tokenHash))) return fail('step_up_required', none);
    const before = await deps.store.factors.list(userId);
    if (atFactorLimit(before)) return fail('factor_limit', none);
    const passkey = await verifyRegistration(deps, config, input.response, { sessionHash: own.tokenHash, userId });
    if (passkey === null) {
      deps.audit.record({
        event: 'second-factor.failed',
        reqid: meta.reqid,
        subject: { userId, ip: meta.clientIp },
        detail: { action: meta.action, reason: 'passkey_invalid', method: 'passkey' },
      });
      return fail('passkey_invalid', none);
    }
    // A login's ticket is spent first: of two registrations racing on one ticket, one finishes the login.
    if (ticket !== null && !(await deps.store.factors.spendTicket(ticket.ticketHash)))
      return fail('login_ticket_invalid', none);
    const first = !before.some((f) => f.active);
    const codes = first ? newRecoveryCodes(deps.random) : [];
    const factorId = deps.random.bytes(16).toString('base64url');
    const now = deps.clock.now();
    const stored = await deps.store.factors.add(
      {
        factorId,
        userId,
        kind: 'passkey',
        name: input.name,
        active: true,
        created: now,
        lastUsed: null,
        secret: null,
        lastStep: null,
        credentialId: passkey.credentialId,
        publicKey: passkey.publicKey,
        signCount: passkey.signCount,
        transports: passkey.transports,
      },
      codes.map((code) => recoveryCodeHash(code) ?? ''),
    );
    // The user was deleted since (their session went with them), or this passkey is registered already.
    if (stored === 'no_user') return fail('session_not_found', none);
    if (stored === 'duplicate') return fail('passkey_invalid', none);
    return ok(await factorAdded(deps, own, 'passkey', { factor_id: factorId, recovery_codes: codes }, meta));
  },
});

const userLoginPasskey = defineAction('user-login-passkey', {
  messages: {
    ok: 'Login successful.',
    failures: {
      passkeys_off: OFF,
      session_not_found: NO_SESSION,
      passkey_invalid: DID_NOT_WORK,
      temporarily_locked: DID_NOT_WORK,
    },
  },
  async handle(deps, input, meta) {
    const none = { user_id: null, user_role: null };
    const config = deps.passkeys;
    if (config === null) return fail('passkeys_off', none);
    const sessionHash = hashToken(input.session_token);
    const now = deps.clock.now();
    if ((await deps.store.sessions.find(sessionHash, now)) === null) return fail('session_not_found', none);
    const proved = await verifyAssertion(deps, config, input.response, ['login'], { sessionHash, userId: null }, meta);
    const userId = proved.ok ? proved.factor.userId : proved.userId;
    const user = userId === null ? undefined : (await deps.store.users.credentialsById(userId))?.user;
    const refused = (code: 'passkey_invalid' | 'temporarily_locked', reason: string) => {
      deps.audit.record({
        event: 'login.failed',
        reqid: meta.reqid,
        subject: { ...(user === undefined ? {} : { userId: user.userId }), ip: meta.clientIp },
        detail: { action: meta.action, reason },
      });
      return fail(code, none);
    };
    if (user === undefined) return refused('passkey_invalid', 'passkey_invalid');
    if (user.lockedUntil !== null && user.lockedUntil > now) return refused('temporarily_locked', 'temporarily_locked');
    if (!proved.ok) {
      // A passkey of ours that did not verify counts like a wrong password for its user (docs/design.md#passkeys).
      const locked = await countFailedCheck(deps, user.userId, meta);
      for (const identity of [user.email, `#${String(user.userId)}`]) await deps.loginBackoff.failed(identity);
      return locked
        ? refused('temporarily_locked', 'temporarily_locked')
        : refused('passkey_invalid', 'passkey_invalid');
    }
    const standing = (await deps.store.users.standings([user.userId])).get(user.userId);
    if (standing === undefined || !standing.isActive || standing.userRole === 'locked')
      return refused('passkey_invalid', 'user_inactive');
    await deps.store.users.recordSuccess(user.userId, now);
    for (const identity of [user.email, `#${String(user.userId)}`]) await deps.loginBackoff.succeeded(identity);
    deps.audit.record({
      event: 'login.succeeded',
      reqid: meta.reqid,
      subject: { userId: user.userId, ip: meta.clientIp },
      detail: { action: meta.action },
    });
    // As after user-login: the login page's session ends; the frontend opens the user's own with session-new.
    await deps.store.sessions.delete(sessionHash);
    return ok({ user_id: user.userId, user_role: user.userRole });
  },
});

export const passkeyHandlers = {
  'user-passkey-options': userPasskeyOptions,
  'user-passkey-register': userPasskeyRegister,
  'user-login-passkey': userLoginPasskey,
} satisfies FamilyHandlers<typeof passkeyActions>;

/**
 * user-new (sign-up): reference §2.3, docs/design.md#emails-and-names-are-normalised,
 * docs/design.md#fixed-accounts-and-new-users.
 */
import { checkSignupEmail } from '../accounts/email.js';
import { holdsLink, normaliseFullName } from '../accounts/full-name.js';
import { isBoundedDict } from '../domain/json-dict.js';
import { fail, invalid, ok } from '../domain/result.js';
import { uuidV4 } from '../domain/tokens.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import type { signupActions } from '../protocol/actions/signup.js';

const CREATED = 'User account created. Please verify your email address to log in.';
const HOUR_MS = 3_600_000;
const DEFAULT_RETRY_WAIT_HOURS = 6;

const userNew = defineAction('user-new', {
  messages: {
    ok: CREATED,
    failures: {
      invalid_email:
        "The email address provided doesn't seem to be a valid email address and cannot be used to sign up for an account on this server.",
      invalid_full_name:
        'The full name provided appears to contain an HTTP link, and cannot be used to sign up for an account on this server.',
      insecure_password: 'Your password is not secure enough.',
      // The same words as a new account: nobody learns that the address is taken.
      user_exists: CREATED,
      system_id_taken: 'The account could not be created.',
    },
  },
  async handle(deps, input, meta) {
    const none = { user_email: null, user_id: null, system_id: null, send_verification: false };
    const email = checkSignupEmail(input.email);
    if (!email.ok) return fail('invalid_email', none);
    const fullName = normaliseFullName(input.full_name);
    if (holdsLink(fullName)) return fail('invalid_full_name', { ...none, user_email: email.email });

    const verdict = await deps.passwords.check(input.password, { email: email.email, fullName });
    if (!verdict.ok) return fail('insecure_password', { ...none, user_email: email.email }, verdict.messages);

    const retryWaitHours = input.verify_retry_wait ?? DEFAULT_RETRY_WAIT_HOURS;
    const extraInfo = {
      ...(input.extra_info ?? {}),
      provenance: 'request-created',
      type: 'normal-user',
      verify_retry_wait: retryWaitHours,
    };
    if (!isBoundedDict(extraInfo)) {
      return invalid([{ param: 'extra_info', problem: 'invalid value', required_type: ['dict', 'None'] }], none);
    }
    if (input.system_id != null && (await deps.store.users.systemIdTaken(input.system_id))) {
      return fail('system_id_taken', { ...none, user_email: email.email });
    }
    // Hashed before looking for an existing account: a taken address costs the same work.
    const passwordHash = await deps.passwords.hasher.hash(input.password);
    const now = deps.clock.now();
    const systemId = input.system_id ?? uuidV4(deps.random);
    const outcome = await deps.store.users.createSignup({
      systemId,
      fullName,
      email: email.email,
      passwordHash,
      extraInfo,
      now,
    });
    if (outcome.created) {
      deps.audit.record({
        event: 'user.signed-up',
        reqid: meta.reqid,
        subject: { userId: outcome.userId, ip: meta.clientIp },
      });
      return ok({ user_email: email.email, user_id: outcome.userId, system_id: systemId, send_verification: true });
    }
    const existing = outcome.existing;
    // An unverified account is taken over by a repeated sign-up once its verification email is old
    // enough; a verified one never is.
    const refreshed =
      !existing.emailVerified &&
      (await deps.store.users.refreshUnverified(
        existing.userId,
        { fullName, passwordHash, extraInfo, now },
        now - retryWaitHours * HOUR_MS,
      ));
    return fail('user_exists', {
      user_email: email.email,
      user_id: existing.userId,
      system_id: existing.systemId,
      send_verification: refreshed,
    });
  },
});

export const signupHandlers = {
  'user-new': userNew,
} satisfies FamilyHandlers<typeof signupActions>;

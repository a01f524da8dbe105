/**
 * user-sendemail-signup and user-sendemail-forgotpass (issue 14, docs/design.md#mail, reference §2.8).
 * Every refusal (unsafe header or link, no session, unknown or ineligible account, the 24-hour
 * window, an SMTP failure) answers success false with null items and the same end-user sentence as
 * a success, so the actions reveal nothing about which accounts exist; only failure_reason differs.
 * A refusal records nothing. The SMTP settings come from the configuration only: per-request
 * `email*` items (the reference's) are ignored.
 */
import { normaliseEmail } from '../protocol/addresses.js';
import { fail, ok } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import { isSafeAddress, isSafeHeaderText } from '../services/mail/headers.js';
import { buildLink } from '../services/mail/link.js';
import type { MailFailure, MailMessage } from '../services/mail/mailer.js';
import { forgotPassMail, mailFacts, signupMail } from '../services/mail/templates.js';
import type { MailFacts } from '../services/mail/templates.js';
import { formatDateTime } from '../protocol/index.js';
import type { ActionInput } from '../protocol/index.js';
import type { UserRecord } from '../services/store/records.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import { emailActions } from '../protocol/actions/email.js';
import type { Deps, Meta } from './define.js';

const SENT = 'If that address belongs to an account, we have sent it an email.';
const WINDOW_MS = 86_400_000;

type Refusal = 'email_header_refused' | 'email_link_refused' | 'session_not_found' | 'email_ineligible';

/** Every refusal says the same as a success, so the reply never tells whether the account exists. */
const sameWords = <C extends string>(codes: readonly C[]): Record<C, string> =>
  Object.fromEntries(codes.map((c) => [c, SENT])) as Record<C, string>;

type CommonInput = ActionInput<'user-sendemail-signup'> | ActionInput<'user-sendemail-forgotpass'>;

interface Prepared {
  readonly user: UserRecord;
  readonly facts: MailFacts;
}

/** The checks both actions make before looking at eligibility: headers, link, session, account. */
async function prepare(
  deps: Deps,
  input: CommonInput,
  fragment: string,
): Promise<{ ok: true; value: Prepared } | { ok: false; code: Refusal }> {
  const email = normaliseEmail(input.email_address);
  if (!isSafeHeaderText(input.server_name) || !isSafeAddress(input.email_address) || !isSafeAddress(email)) {
    return { ok: false, code: 'email_header_refused' };
  }
  const link = buildLink(input.server_baseurl, fragment);
  if (link === null) return { ok: false, code: 'email_link_refused' };
  const now = deps.clock.now();
  const session = await deps.store.sessions.find(hashToken(input.session_token), now);
  if (session === null) return { ok: false, code: 'session_not_found' };
  const user = await deps.store.users.byEmail(email);
  if (user === null) return { ok: false, code: 'email_ineligible' };
  // mailFacts makes every value printed as text fit to print (docs/design.md#mail).
  const facts = mailFacts({
    to: user.email,
    serverName: input.server_name,
    baseUrl: link.base,
    link: link.href,
    token: input.verification_token,
    expiry: `${formatDateTime(now + input.verification_expiry * 1000)} (UTC time)`,
    browser: session.userAgent.replace(/_/g, '.'),
    ipAddress: session.ipAddress,
  });
  return { ok: true, value: { user, facts } };
}

/** Sends, and writes the outcome to the audit log (the SMTP detail never reaches the frontend). */
async function send(
  deps: Deps,
  meta: Meta,
  kind: 'signup' | 'forgotpass',
  user: UserRecord,
  message: MailMessage,
): Promise<MailFailure | null> {
  const sent = await deps.mailer.send(message);
  const subject = { userId: user.userId, ip: meta.clientIp };
  deps.audit.record(
    sent.ok
      ? { event: 'email.sent', reqid: meta.reqid, subject, detail: { kind, ms: Math.round(sent.elapsedMs) } }
      : {
          event: 'email.not-sent',
          reqid: meta.reqid,
          subject,
          detail: { kind, failure: sent.failure, smtp: sent.detail },
        },
  );
  return sent.ok ? null : sent.failure;
}

const noSignup = { user_id: null, email_address: null, emailverify_sent_datetime: null };

const userSendemailSignup = defineAction('user-sendemail-signup', {
  messages: { ok: SENT, failures: sameWords(emailActions['user-sendemail-signup'].failures) },
  async handle(deps, input, meta) {
    const prepared = await prepare(deps, input, input.account_verify_url);
    if (!prepared.ok) return fail(prepared.code, noSignup);
    const { user, facts } = prepared.value;
    const info = input.created_info;
    // A superuser-locked account (previous role kept) gets no mail, as user-set-emailverified ignores it.
    if (!info.send_verification || info.user_id !== user.userId || user.emailVerified || user.previousRole !== null) {
      return fail('email_ineligible', noSignup);
    }
    const failure = await send(deps, meta, 'signup', user, signupMail(facts));
    if (failure !== null) return fail(failure, noSignup);
    const now = deps.clock.now();
    await deps.store.users.recordVerifySent(user.userId, now);
    return ok({ user_id: user.userId, email_address: user.email, emailverify_sent_datetime: formatDateTime(now) });
  },
});

const noForgot = { user_id: null, email_address: null, emailforgotpass_sent_datetime: null };

function mayResetPassword(user: UserRecord): boolean {
  return user.isActive && user.emailVerified && user.userRole !== 'locked' && user.userRole !== 'anonymous';
}

const userSendemailForgotpass = defineAction('user-sendemail-forgotpass', {
  messages: { ok: SENT, failures: sameWords(emailActions['user-sendemail-forgotpass'].failures) },
  async handle(deps, input, meta) {
    const prepared = await prepare(deps, input, input.password_forgot_url);
    if (!prepared.ok) return fail(prepared.code, noForgot);
    const { user, facts } = prepared.value;
    if (!mayResetPassword(user)) return fail('email_ineligible', noForgot);
    // The window check and the record are one statement: of two requests at once, one sends.
    const now = deps.clock.now();
    if (!(await deps.store.users.claimForgotPass(user.userId, now, now - WINDOW_MS))) {
      return fail('email_window', noForgot);
    }
    const failure = await send(deps, meta, 'forgotpass', user, forgotPassMail(facts));
    if (failure !== null) {
      await deps.store.users.releaseForgotPass(user.userId, now, user.emailforgotpassSentDatetime);
      return fail(failure, noForgot);
    }
    return ok({ user_id: user.userId, email_address: user.email, emailforgotpass_sent_datetime: formatDateTime(now) });
  },
});

export const emailHandlers = {
  'user-sendemail-signup': userSendemailSignup,
  'user-sendemail-forgotpass': userSendemailForgotpass,
} satisfies FamilyHandlers<typeof emailActions>;

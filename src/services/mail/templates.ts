/**
 * The texts of the two mails, as the reference's templates (reference §9), with three differences:
 * the link is built safely (link.ts), the token is never wrapped to 70 columns, and every value
 * printed as text is fit to print (printable.ts; docs/design.md#mail).
 */
import { renderHtml, renderText } from './compose.js';
import type { Paragraph } from './compose.js';
import type { MailMessage } from './mailer.js';
import { printable } from './printable.js';
import type { Printable } from './printable.js';

/** What the email actions know, as given: text of the visitor's or the frontend's choosing. */
export interface MailInput {
  readonly to: string;
  readonly serverName: string;
  /** The frontend's base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The base URL joined with the action's URL fragment. */
  readonly link: string;
  readonly token: string;
  /** `<ISO time> (UTC time)` */
  readonly expiry: string;
  /** The session's user agent, `_` as `.` (as the reference). */
  readonly browser: string;
  readonly ipAddress: string;
}

/**
 * What a template may use, made only by mailFacts(): each value printed as text is a Printable.
 * The link and the token are the exceptions, as they must arrive whole to work: the link is
 * percent-encoded ASCII on the base URL's origin (link.ts) and the token one run of non-space
 * characters (the action's schema); both are HTML-escaped like every value.
 */
export interface MailFacts {
  /** The envelope recipient (checked by headers.ts before any connection). */
  readonly to: string;
  readonly link: string;
  readonly token: string;
  readonly shown: {
    readonly to: Printable;
    readonly serverName: Printable;
    readonly baseUrl: Printable;
    readonly expiry: Printable;
    readonly browser: Printable;
    readonly ipAddress: Printable;
  };
}

export function mailFacts(input: MailInput): MailFacts {
  return {
    to: input.to,
    link: input.link,
    token: input.token,
    shown: {
      to: printable(input.to),
      serverName: printable(input.serverName),
      baseUrl: printable(input.baseUrl),
      expiry: printable(input.expiry),
      browser: printable(input.browser),
      ipAddress: printable(input.ipAddress),
    },
  };
}

const IP_HINT = 'You can see your IP address here: https://www.google.com/search?q=my+ip+address';
const STRANGER =
  'If you do not recognize the browser and IP address above or did not\n' +
  'initiate this request, someone else may have used your email address\n' +
  'in error. Feel free to ignore this email.';

function opening({ shown: f, token }: MailFacts, request: string, made: string): Paragraph[] {
  return [
    ['Hello,'],
    [`This is an automated message from the ${f.serverName} at: ${f.baseUrl}.`],
    [`We received ${request} for: ${f.to}. This request\n${made} using the browser:`],
    [f.browser],
    [`from the IP address: ${f.ipAddress}.`],
    ['Please enter this code:'],
    [{ code: token }],
  ];
}

function closing({ shown: f }: MailFacts): Paragraph[] {
  return [[STRANGER], [IP_HINT], [`Thanks,\n${f.serverName} admins\n${f.baseUrl}`]];
}

function message(to: string, subject: string, paragraphs: readonly Paragraph[]): MailMessage {
  return { to, subject, text: renderText(paragraphs), html: renderHtml(subject, paragraphs) };
}

export function signupMail(f: MailFacts): MailMessage {
  return message(f.to, `[${f.shown.serverName}] Please verify your account sign up request`, [
    ...opening(f, 'an account sign up request', 'was made'),
    ['into the account verification form at: ', { link: f.link }],
    ['to verify that you made this request. This code will expire on'],
    [f.shown.expiry],
    ['You will also need to enter your email address and password\nto log in.'],
    ...closing(f),
  ]);
}

export function forgotPassMail(f: MailFacts): MailMessage {
  return message(f.to, `[${f.shown.serverName}] Please verify your password reset request`, [
    ...opening(f, 'a password reset request', 'was initiated'),
    ['into the password reset form at: ', { link: f.link }],
    ['to verify that you made this request. This code will expire on'],
    [f.shown.expiry],
    ...closing(f),
  ]);
}

/** The security mails (docs/design.md#security-mail): what happened to the account, when, from where. */
export const SECURITY_MAIL_KINDS = [
  'locked',
  'password-changed',
  'password-reset',
  'email-changed',
  'factor-added',
  'factor-removed',
  'apikey-created',
  'new-device',
] as const;
export type SecurityMailKind = (typeof SECURITY_MAIL_KINDS)[number];

/**
 * What a security mail may say, as given. There is no new address for `email-changed`: the mail goes to the
 * old mailbox, which may no longer be the owner's (a former employer's, a recycled one), and the new address
 * must not reach whoever reads it.
 */
export interface SecurityMailInput {
  readonly to: string;
  readonly serverName: string;
  /** The frontend's base URL; may be empty. */
  readonly baseUrl: string;
  /** ISO 8601. */
  readonly time: string;
  /** Empty when unknown: the line is left out. */
  readonly ipAddress: string;
  /** The user agent; empty when unknown: the line is left out. */
  readonly browser: string;
}

const RESET = 'reset your password at once and tell the administrators';

/** Per kind: the subject, what happened, and what to do if it was not the account's owner. */
const SECURITY_TEXTS: Readonly<Record<SecurityMailKind, { subject: string; event: string; advice: string }>> = {
  locked: {
    subject: 'Your account was locked',
    event: 'Your account was locked for a while after too many failed logins.\nLogins are refused until the lock ends.',
    advice:
      'If this was not you, someone may be guessing your password:\n' +
      'once the lock ends, choose a new one that you use nowhere else,\nand tell the administrators.',
  },
  'password-changed': {
    subject: 'Your password was changed',
    event: 'The password of your account was changed.',
    advice: `If this was not you, ${RESET}.`,
  },
  'password-reset': {
    subject: 'Your password was reset',
    event: 'The password of your account was reset with a code sent to this address.',
    advice: `If this was not you, someone may read your mail: secure your mailbox,\nthen ${RESET}.`,
  },
  'email-changed': {
    subject: 'The address of your account was changed',
    event: 'The address of your account was changed: this address no longer\nreceives its mails.',
    // A password reset would go to the new address: only the administrators can help.
    advice: 'If this was not you, contact the administrators at once:\nsomeone else may control your account.',
  },
  'factor-added': {
    subject: 'A second factor was added to your account',
    event: 'A second factor was added to your account.',
    advice: `If this was not you, ${RESET}:\nsomeone else may control your account.`,
  },
  'factor-removed': {
    subject: 'A second factor was removed from your account',
    event: 'A second factor was removed from your account.',
    advice: `If this was not you, ${RESET}:\nsomeone else may control your account.`,
  },
  'apikey-created': {
    subject: 'An API key was created for your account',
    event: 'An API key was created for your account.',
    advice: `If this was not you, revoke the key, then\n${RESET}.`,
  },
  'new-device': {
    subject: 'New login to your account',
    event: 'Your account was logged in to from a device not seen before.',
    advice: `If this was you, there is nothing to do. If this was not you,\n${RESET}.`,
  },
};

/** One mail per kind; every value printed is made fit to print here, as mailFacts() does for the two others. */
export function securityMail(kind: SecurityMailKind, facts: SecurityMailInput): MailMessage {
  const serverName = printable(facts.serverName);
  const baseUrl = printable(facts.baseUrl);
  const ipAddress = printable(facts.ipAddress);
  const browser = printable(facts.browser);
  const texts = SECURITY_TEXTS[kind];
  // Where it came from, as far as known: an empty value leaves its line out, rather than print "unknown".
  const when = [`When: ${printable(facts.time)}`];
  if (ipAddress !== '') when.push(`IP address: ${ipAddress}`);
  if (browser !== '') when.push(`Browser: ${browser}`);
  return message(facts.to, `[${serverName}] ${texts.subject}`, [
    ['Hello,'],
    [
      `This is an automated message from the ${serverName}${baseUrl === '' ? '' : ` at: ${baseUrl}`},\n` +
        `about your account ${printable(facts.to)}.`,
    ],
    [texts.event],
    [when.join('\n')],
    [texts.advice],
    [`Thanks,\n${serverName} admins${baseUrl === '' ? '' : `\n${baseUrl}`}`],
  ]);
}

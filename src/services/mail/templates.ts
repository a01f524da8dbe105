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

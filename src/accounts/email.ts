/**
 * Sign-up email addresses (reference §2.3 step 1, docs/design.md#emails-and-names-are-normalised): normalised (NFKC,
 * lower case) and then required to be an HTML5 address, not a reserved local part (§5.5), and not at a disposable
 * domain. The HTML5 form is ASCII-only, so mixed-script confusables cannot pass it and need no check
 * of their own (docs/design.md#emails-and-names-are-normalised).
 */
import { isDisposableEmailDomain } from 'disposable-email-domains-js';
import { normaliseEmail } from '../protocol/index.js';

/** The WHATWG HTML "valid e-mail address" production. */
const HTML5_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Local parts that belong to the service or its operators (reference §5.5). */
const RESERVED_LOCAL_PARTS: ReadonlySet<string> = new Set(
  (
    'autoconfig autodiscover broadcasthost isatap localdomain localhost wpad ' +
    'ftp imap mail news pop pop3 smtp usenet uucp webmail www ' +
    'admin administrator hostmaster info is it mis postmaster root ssladmin ssladministrator sslwebmaster sysadmin webmaster ' +
    'abuse marketing noc sales security support ' +
    'mailer-daemon nobody noreply no-reply ' +
    'clientaccesspolicy.xml crossdomain.xml favicon.ico humans.txt keybase.txt robots.txt .htaccess .htpasswd ' +
    'account accounts auth authorize blog buy cart clients contact contactus contact-us copyright dashboard doc docs ' +
    'download downloads enquiry faq help inquiry license login logout me myaccount oauth pay payment payments plans ' +
    'portfolio preferences pricing privacy profile register secure settings signin signup ssl status store subscribe ' +
    'terms tos user users weblog work'
  ).split(' '),
);

export type EmailCheck =
  { readonly ok: true; readonly email: string } | { readonly ok: false; readonly reason: string };

function isDisposable(domain: string): boolean {
  // The domain and each parent: x.mailinator.com is as disposable as mailinator.com.
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) if (isDisposableEmailDomain(labels.slice(i).join('.'))) return true;
  return false;
}

/** The email a new account may use, normalised; or why not (for failure_reason). */
export function checkSignupEmail(raw: string): EmailCheck {
  const email = normaliseEmail(raw);
  const at = email.indexOf('@');
  if (at <= 0 || at !== email.lastIndexOf('@')) return { ok: false, reason: 'not one @' };
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > 64 || email.length > 254) return { ok: false, reason: 'too long' };
  if (!HTML5_EMAIL.test(email)) return { ok: false, reason: 'not an address' };
  if (RESERVED_LOCAL_PARTS.has(local)) return { ok: false, reason: 'reserved local part' };
  if (!domain.includes('.')) return { ok: false, reason: 'domain without a dot' };
  if (isDisposable(domain)) return { ok: false, reason: 'disposable domain' };
  return { ok: true, email };
}

/**
 * The password policy (reference §5.2): each broken rule adds its message, in the reference's order
 * and words (frontends may match them, so they stay verbatim, "appear appear" included). The
 * compromised-password lookup runs only when the other rules pass.
 */
import difflib from 'difflib';
import type { PwnedChecker } from './pwned.js';

/** The policy's thresholds (`--passpolicy`, or a request's own in `user-validatepass`); config decodes the option into them. */
export interface PassPolicy {
  readonly minPassLength: number;
  readonly maxUnsafeSimilarity: number;
  readonly maxCharFrequency: number;
  readonly minPwnedMatches: number;
}

/** The spec's defaults. */
export const DEFAULT_PASS_POLICY: PassPolicy = {
  minPassLength: 12,
  maxUnsafeSimilarity: 50,
  maxCharFrequency: 0.3,
  minPwnedMatches: 25,
};

/**
 * Python's `difflib.SequenceMatcher(None, a, b).ratio()`, which the reference uses to refuse passwords
 * too similar to the server's name, the email or the full name. The `difflib` package is a faithful
 * port (autojunk included); we give it arrays of code points so it compares characters as Python
 * does, not UTF-16 units.
 */
export function similarity(a: string, b: string): number {
  return new difflib.SequenceMatcher(null, Array.from(a), Array.from(b)).ratio() * 100;
}

/** Longer passwords are refused, never truncated. */
export const MAX_PASSWORD_LENGTH = 1024;

export interface PasswordContext {
  readonly email: string;
  readonly fullName: string;
}

export interface PolicyDeps {
  /** The service's domain name, which passwords must not resemble. */
  readonly serverName: string;
  readonly pwned: PwnedChecker;
  /** Refuse when the compromised-password check cannot answer. */
  readonly pwnedFailClosed: boolean;
}

export interface PolicyVerdict {
  readonly ok: boolean;
  readonly messages: readonly string[];
}

/** Runs of control characters and spaces become one space; the ends are trimmed. */
function squeeze(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0020]+/g, ' ').trim();
}

const fold = (text: string): string => text.normalize('NFKC').toLowerCase();

export async function checkPassword(
  password: string,
  context: PasswordContext,
  policy: PassPolicy,
  deps: PolicyDeps,
): Promise<PolicyVerdict> {
  const messages: string[] = [];
  if (Array.from(password).length > MAX_PASSWORD_LENGTH) {
    return {
      ok: false,
      messages: [`Your password is too long. It must have at most ${MAX_PASSWORD_LENGTH} characters.`],
    };
  }
  if (Array.from(squeeze(password)).length < policy.minPassLength) {
    messages.push(`Your password is too short. It must have at least ${policy.minPassLength} characters.`);
  }
  if (await isCommonPassword(fold(password))) {
    messages.push('Your password is on the list of the most common passwords and is vulnerable to guessing.');
  }
  const folded = squeeze(fold(password).trim());
  const others = [deps.serverName, context.email, context.fullName].map(fold);
  if (others.some((other) => similarity(folded, other) >= policy.maxUnsafeSimilarity)) {
    messages.push(
      'Your password is too similar to either the domain name of this server or your own name or email address.',
    );
  }
  const characters = Array.from(password);
  const counts = new Map<string, number>();
  for (const c of characters) counts.set(c, (counts.get(c) ?? 0) + 1);
  if ([...counts.values()].some((n) => n / characters.length > policy.maxCharFrequency)) {
    messages.push('Your password is not complex enough. One or more characters appear appear too frequently.');
  }
  if (/^\p{Nd}+$/u.test(password)) messages.push('Your password cannot be all numbers.');
  if (messages.length > 0) return { ok: false, messages };

  const seen = await deps.pwned.count(password);
  if (seen === null && deps.pwnedFailClosed) {
    return {
      ok: false,
      messages: [
        'Your password could not be checked against the database of compromised passwords right now. Please try again later.',
      ],
    };
  }
  if (seen !== null && seen >= policy.minPwnedMatches) {
    return {
      ok: false,
      messages: [
        `Your password was found with ${seen} matches in the database of recently compromised Web account passwords from https://haveibeenpwned.com/Passwords and is not secure.`,
      ],
    };
  }
  return { ok: true, messages: [] };
}

/**
 * The most common passwords: the first 10,000 of the ranked list that zxcvbn-ts maintains (built from
 * the same 10-million-password corpus as SecLists' top-10000 list, which the reference bundles).
 * Loaded on first use: the package's dictionaries take ~2.3 MB of heap that a process which never sets
 * a password (one serving logins and sessions) does not need.
 */
const TOP = 10_000;
let common: Promise<ReadonlySet<string>> | null = null;

export async function isCommonPassword(lowercased: string): Promise<boolean> {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].slice(0, TOP)),
    (error: unknown) => {
      common = null; // the next check tries again
      throw error;
    },
  );
  return (await common).has(lowercased);
}

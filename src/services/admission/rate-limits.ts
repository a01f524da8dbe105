/**
 * The `ratelimits` item (spec "Limits"): `none`, or `key:n` pairs separated by semicolons, merged over
 * the spec's defaults. Keys are the group limits (`ipaddr`, `user`, `session`, `apikey`), `burst`, or an
 * action name whose per-IP limit (and per-email limit, for the email-tied actions) becomes n. All values
 * are requests per minute. Every problem is reported at once, for the start-up message.
 */

export interface RatePolicy {
  /** Sustained requests per minute of the per-IP bucket and of each group bucket. */
  readonly ipaddr: number;
  readonly user: number;
  readonly session: number;
  readonly apikey: number;
  /** How many requests a fresh per-IP or group bucket passes back to back. */
  readonly burst: number;
  /** Per-action limits (per IP, and per email for email-tied actions): the strict table plus overrides. */
  readonly actions: ReadonlyMap<string, number>;
}

export type GroupKey = 'ipaddr' | 'user' | 'session' | 'apikey' | 'burst';

export const DEFAULT_GROUP_LIMITS: Readonly<Record<GroupKey, number>> = {
  ipaddr: 720,
  user: 480,
  session: 600,
  apikey: 720,
  burst: 150,
};

/**
 * The spec's stricter per-IP limits of single actions, plus every other action that checks a password
 * (docs/design.md#one-credential-check).
 */
export const STRICT_ACTION_LIMITS: ReadonlyMap<string, number> = new Map([
  ['user-new', 5],
  ['user-login', 10],
  ['user-logout', 10],
  ['user-edit', 10],
  ['user-resetpass', 5],
  ['user-changepass', 5],
  ['user-changepass-nosession', 5],
  ['user-delete', 5],
  // The second steps: each wrong code also counts toward the account's lock (docs/design.md#second-factors).
  ['user-login-secondfactor', 10],
  ['user-stepup', 10],
  ['user-totp-confirm', 10],
  ['user-login-passkey', 10],
  ['user-passkey-register', 10],
  ['user-sendemail-signup', 2],
  ['user-sendemail-forgotpass', 2],
  ['user-set-emailsent', 2],
  ['apikey-new', 30],
  ['apikey-new-nosession', 30],
  ['apikey-refresh-nosession', 30],
]);

export const DEFAULT_RATE_POLICY: RatePolicy = { ...DEFAULT_GROUP_LIMITS, actions: STRICT_ACTION_LIMITS };

/** Large enough for any real limit, small enough that GCRA times stay exact integers (see the GCRA in buckets.ts). */
export const MAX_PER_MINUTE = 10_000_000;

export type RateLimitsParse =
  | { readonly ok: true; readonly value: RatePolicy | null }
  | { readonly ok: false; readonly problems: readonly string[] };

const isGroupKey = (key: string): key is GroupKey => Object.hasOwn(DEFAULT_GROUP_LIMITS, key);

function perMinute(text: string): number | null {
  if (!/^\d{1,12}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_PER_MINUTE ? n : null;
}

/** Parses the item; `actionNames` are the actions the server knows (a misspelt one is a problem). */
export function parseRateLimits(text: string, actionNames: readonly string[]): RateLimitsParse {
  if (text.trim().toLowerCase() === 'none') return { ok: true, value: null };
  const known = new Set(actionNames);
  const groups: Record<GroupKey, number> = { ...DEFAULT_GROUP_LIMITS };
  const actions = new Map(STRICT_ACTION_LIMITS);
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const part of text.split(';').map((p) => p.trim())) {
    if (part === '') continue;
    const colon = part.indexOf(':');
    if (colon <= 0) {
      problems.push(`"${part}" is not key:value`);
      continue;
    }
    const key = part.slice(0, colon).trim().toLowerCase();
    const value = part.slice(colon + 1).trim();
    if (seen.has(key)) problems.push(`"${key}" is given twice`);
    seen.add(key);
    if (!isGroupKey(key) && !known.has(key)) {
      problems.push(`unknown key "${key}" (ipaddr, user, session, apikey, burst, or an action name)`);
      continue;
    }
    const n = perMinute(value);
    if (n === null) problems.push(`${key} must be an integer from 1 to ${MAX_PER_MINUTE} per minute, not "${value}"`);
    else if (isGroupKey(key)) groups[key] = n;
    else actions.set(key, n);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { ...groups, actions } };
}

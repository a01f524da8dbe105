/**
 * Rate classes (docs/design.md#gcra-buckets): which group bucket an action counts against and which body item
 * keys it. The limiter reads them from each action's declaration; they are data, so the docs show them
 * and a test checks them against the reference's rule (by name prefix).
 *
 * The limiter runs before the body is validated, so the key is read from whatever the body holds: an
 * item counts only when it has the type and size it would need to pass validation; otherwise the next
 * item is tried, and with none the IP alone keys the bucket (still limited, just more coarsely).
 */
import { normaliseEmail } from './addresses.js';
import { LIMITS, MAX_ID } from './schema-kit.js';

/** The group buckets; `internal-*` actions have none (per IP only). */
export type RateGroup = 'session' | 'user' | 'apikey';

/** A body item that may key a group bucket: an item's name, or a path into a dict item. */
export type RateKeyItem = 'session_token' | 'email' | 'email_address' | 'user_id' | 'apikey_dict.tkn';

export interface RateClass {
  /** The group bucket; null: limited per IP only. */
  readonly group: RateGroup | null;
  /** The first of these present in the body keys the group bucket, with the IP; none present: the IP alone. */
  readonly keys: readonly RateKeyItem[];
  /** Also limited per email address (`email`, else `email_address`). */
  readonly emailTied: boolean;
}

/** `session-*`: by session token with the IP, or the IP alone (session-new has no token). */
export const SESSION_RATE = {
  group: 'session',
  keys: ['session_token'],
  emailTied: false,
} as const satisfies RateClass;

/** `user-*`: by email, else user id, else session token, with the IP. */
export const USER_RATE = {
  group: 'user',
  keys: ['email', 'email_address', 'user_id', 'session_token'],
  emailTied: false,
} as const satisfies RateClass;

/** The `user-*` actions that send (or record sending) an email: also limited per address. */
export const USER_EMAIL_RATE = { ...USER_RATE, emailTied: true } as const satisfies RateClass;

/** `apikey-*`: by the key's `tkn`, else session token, else user id, with the IP. */
export const APIKEY_RATE = {
  group: 'apikey',
  keys: ['apikey_dict.tkn', 'session_token', 'user_id'],
  emailTied: false,
} as const satisfies RateClass;

/** `internal-*`: no group bucket, per IP only. */
export const INTERNAL_RATE = { group: null, keys: [], emailTied: false } as const satisfies RateClass;

type Body = Readonly<Record<string, unknown>>;

const EMAIL_ITEMS: ReadonlySet<RateKeyItem> = new Set(['email', 'email_address']);

function lookup(body: Body, item: RateKeyItem): unknown {
  let value: unknown = body;
  for (const name of item.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, name)) return undefined;
    value = (value as Body)[name];
  }
  return value;
}

/** The item's value as a key, or null when the body holds no usable value for it. */
function keyValue(body: Body, item: RateKeyItem): string | null {
  const value = lookup(body, item);
  if (item === 'user_id') {
    return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ID ? String(value) : null;
  }
  if (typeof value !== 'string') return null;
  // Emails as compared everywhere, so changing the case of an address opens no new bucket.
  const key = EMAIL_ITEMS.has(item) ? normaliseEmail(value) : value;
  return key === '' || key.length > LIMITS.token ? null : key;
}

/**
 * The key of the action's group bucket for this body and IP (the IP as the limiter buckets it), or
 * null when the action has no group bucket. The IP comes before the item's value and holds no `|`,
 * so no two (IP, item, value) give the same key.
 */
export function groupBucketKey(rate: RateClass, body: Body, ip: string): string | null {
  if (rate.group === null) return null;
  for (const item of rate.keys) {
    const value = keyValue(body, item);
    if (value !== null) return `${rate.group}|${ip}|${item}|${value}`;
  }
  return `${rate.group}|${ip}`;
}

/**
 * The key of the per-address bucket of an email-tied action (`email`, else `email_address`,
 * normalised; the limiter adds the action's name, the buckets being per action and address), or null
 * when the action is not email-tied or the body holds no address (the reference refuses such a
 * request: that decision is the limiter's).
 */
export function emailBucketKey(rate: RateClass, body: Body): string | null {
  if (!rate.emailTied) return null;
  const address = keyValue(body, 'email') ?? keyValue(body, 'email_address');
  return address === null ? null : `email|${address}`;
}

import type { RateClass } from '../../src/admission/buckets.js';
import { bucketsFor } from '../../src/admission/buckets.js';
import type { Bucket } from '../../src/admission/gcra.js';
import type { RatePolicy } from '../../src/admission/rate-limits.js';
import { parseRateLimits } from '../../src/admission/rate-limits.js';

/** The rate classes the action declarations will carry (DESIGN decision 20), for the actions tested here. */
const USER: RateClass = { group: 'user', keys: ['email', 'user_id', 'session_token'], emailTied: false };
export const RATE_CLASSES: Readonly<Record<string, RateClass>> = {
  'session-new': { group: 'session', keys: [], emailTied: false },
  'session-exists': { group: 'session', keys: ['session_token'], emailTied: false },
  'user-new': USER,
  'user-list': USER,
  'user-login': USER,
  'user-sendemail-forgotpass': { ...USER, emailTied: true },
  'apikey-verify': { group: 'apikey', keys: ['apikey_dict.tkn', 'session_token', 'user_id'], emailTied: false },
  'internal-user-lock': { group: null, keys: [], emailTied: false },
};
export const ACTION_NAMES = [...Object.keys(RATE_CLASSES), 'user-logout', 'user-edit', 'apikey-new'];

export function policy(text: string): RatePolicy {
  const parsed = parseRateLimits(text, ACTION_NAMES);
  if (!parsed.ok || parsed.value === null) throw new Error(`bad test policy ${text}`);
  return parsed.value;
}

export function buckets(
  rates: RatePolicy,
  action: string,
  clientIp = '203.0.113.7',
  body: Readonly<Record<string, unknown>> = {},
): Bucket[] {
  const rateClass = RATE_CLASSES[action];
  if (rateClass === undefined) throw new Error(`no rate class for ${action}`);
  return bucketsFor(rates, { action, rateClass, body, clientIp });
}

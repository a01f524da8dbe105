import { bucketsFor } from '../../src/services/admission/buckets.js';
import type { Bucket } from '../../src/services/admission/buckets.js';
import type { RatePolicy } from '../../src/services/admission/rate-limits.js';
import { parseRateLimits } from '../../src/services/admission/rate-limits.js';
import { actionNames, actionSpecs, isActionName } from '../../src/protocol/index.js';

/** Every action the server knows, as the configuration checks `<action>:<n>` keys against them. */
export const ACTION_NAMES: readonly string[] = actionNames;

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
  if (!isActionName(action)) throw new Error(`no action ${action}`);
  // The rate class comes from the action's one declaration.
  return bucketsFor(rates, { action, rateClass: actionSpecs[action].rate, body, clientIp });
}

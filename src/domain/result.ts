import type { FailureCode, Problem } from '../protocol/index.js';

/** Expected failures are values; only bugs and infrastructure faults throw. */
export type Result<T, C extends FailureCode = FailureCode> =
  | { readonly ok: true; readonly value: T; readonly messages?: readonly string[] }
  | {
      readonly ok: false;
      readonly code: C;
      readonly items: Partial<T>;
      readonly problems?: readonly Problem[];
      /** End-user messages of this outcome, when they depend on it (e.g. each password rule broken). */
      readonly messages?: readonly string[];
    };

/** Success; `messages` replace the action's usual message when the outcome has its own. */
export function ok<T>(value: T, messages?: readonly string[]): Result<T, never> {
  return messages === undefined ? { ok: true, value } : { ok: true, value, messages };
}

export function fail<C extends FailureCode, T = never>(
  code: C,
  items: Partial<T> = {},
  messages?: readonly string[],
): Result<T, C> {
  return messages === undefined ? { ok: false, code, items } : { ok: false, code, items, messages };
}

/** A request that passed the schema but whose values are still unacceptable (e.g. a past datetime). */
export function invalid<T = never>(problems: readonly Problem[], items: Partial<T> = {}): Result<T, 'invalid_params'> {
  return { ok: false, code: 'invalid_params', items, problems };
}

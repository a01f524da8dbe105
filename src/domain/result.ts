import type { Problem } from '../protocol/index.js';
import type { FailureCode } from './errors.js';

/** Expected failures are values; only bugs and infrastructure faults throw. */
export type Result<T, C extends FailureCode = FailureCode> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: C; readonly items: Partial<T>; readonly problems?: readonly Problem[] };

export function ok<T>(value: T): Result<T, never> {
  return { ok: true, value };
}

export function fail<C extends FailureCode, T = never>(code: C, items: Partial<T> = {}): Result<T, C> {
  return { ok: false, code, items };
}

/** A request that passed the schema but whose values are still unacceptable (e.g. a past datetime). */
export function invalid<T = never>(problems: readonly Problem[], items: Partial<T> = {}): Result<T, 'invalid_params'> {
  return { ok: false, code: 'invalid_params', items, problems };
}

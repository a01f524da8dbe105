import type { JsonValue } from '../protocol/index.js';

/**
 * Deep equality of JSON values with their types kept apart (1, "1" and true differ; so do [] and {}).
 * Objects compare by their own keys, in any order; arrays element by element. The recursion goes
 * only as deep as both values agree, so it is bounded by the shallower one (a bounded dict of the
 * request, at most 16 levels).
 */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]));
}

/** Whether every top-level item of `wanted` is in `stored` with a deep-equal value. */
export function holdsItems(
  stored: Readonly<Record<string, JsonValue>> | null,
  wanted: Readonly<Record<string, JsonValue>>,
): boolean {
  // Stored rows may predate us (imports): anything but an object holds nothing.
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
  return Object.keys(wanted).every(
    (key) => Object.prototype.hasOwnProperty.call(stored, key) && jsonEqual(stored[key], wanted[key]),
  );
}

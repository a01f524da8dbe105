import { FORBIDDEN_KEYS, isSafeText, MAX_DICT_BYTES, MAX_DICT_DEPTH, MAX_DICT_ENTRIES } from '../protocol/index.js';
import type { JsonObject, JsonValue } from '../protocol/index.js';

/** The size of a dict as stored: its JSON in UTF-8. */
export function dictBytes(value: JsonObject): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * Whether a value is a JSON object within the dict bounds. Iterative on purpose: input may be
 * 100,000 levels deep, and recursion would overflow the stack (a 500) on exactly that input.
 */
export function isBoundedDict(value: unknown): value is JsonObject {
  if (!isPlainObject(value)) return false;
  if (!hasBoundedShape(value)) return false;
  // Serialized only once the shape is known to be small and shallow (stringify recurses).
  return dictBytes(value as JsonObject) <= MAX_DICT_BYTES;
}

function hasBoundedShape(value: Record<string, unknown>): boolean {
  let entries = 0;
  // UTF-16 units of every key and string so far: a lower bound of the UTF-8 size, to stop early.
  let units = 0;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, depth } = item;
    if (typeof node === 'string') {
      units += node.length;
      if (units > MAX_DICT_BYTES || !isSafeText(node)) return false;
    } else if (Array.isArray(node)) {
      if (depth > MAX_DICT_DEPTH) return false;
      entries += node.length;
      if (entries > MAX_DICT_ENTRIES) return false;
      for (const child of node) stack.push({ node: child, depth: depth + 1 });
    } else if (node !== null && typeof node === 'object') {
      if (depth > MAX_DICT_DEPTH) return false;
      const keys = Object.keys(node);
      entries += keys.length;
      if (entries > MAX_DICT_ENTRIES) return false;
      for (const key of keys) {
        units += key.length;
        if (units > MAX_DICT_BYTES || FORBIDDEN_KEYS.has(key) || !isSafeText(key)) return false;
        stack.push({ node: (node as Record<string, unknown>)[key], depth: depth + 1 });
      }
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node)) return false;
    } else if (typeof node !== 'boolean' && node !== null) {
      return false;
    }
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value that deletes an item in the edit actions' `update_dict`. */
export const DELETE_MARKER = '__delete__';

/**
 * Applies `update` to `stored`: each item is set, or removed when its value is `__delete__`
 * (a no-op when absent). Works on a Map, so no key can reach Object.prototype.
 */
export function mergeDict(stored: JsonObject, update: JsonObject): JsonObject {
  const merged = new Map<string, JsonValue>();
  for (const [key, value] of Object.entries(stored)) if (!FORBIDDEN_KEYS.has(key)) merged.set(key, value);
  for (const [key, value] of Object.entries(update)) {
    if (FORBIDDEN_KEYS.has(key)) continue;
    if (value === DELETE_MARKER) merged.delete(key);
    else merged.set(key, value);
  }
  // fromEntries defines own properties, so even a `__proto__` key could not reach the prototype.
  return Object.fromEntries(merged);
}

/**
 * Bytes → JSON value, refusing before anything recursive runs (trap P5: ajv's recursion overflows on
 * 1,000-deep or 10 MB documents): the size first, then well-formed UTF-8, then the nesting depth by a
 * flat scan of the text, and only then JSON.parse.
 */

/** A policy is a few kilobytes; 1 MiB leaves room for large custom ones. */
export const MAX_POLICY_BYTES = 1024 * 1024;
/** The default policy nests 5 deep; rules with JSON-Logic conditions (≤ 16) still fit. */
export const MAX_POLICY_DEPTH = 32;

export type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Deepest nesting of arrays and objects, counting only brackets outside strings; stops past `limit`. */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}

export function parseJsonBounded(bytes: Uint8Array, maxBytes: number, maxDepth: number): Parsed {
  if (bytes.length > maxBytes) {
    return { ok: false, problem: `is ${bytes.length} bytes, more than the ${maxBytes} allowed` };
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, problem: 'is not UTF-8 text' };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { ok: false, problem: 'is empty' };
  if (nestingDepth(text, maxDepth) > maxDepth) {
    return { ok: false, problem: `nests more than ${maxDepth} levels deep` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, problem: `is not JSON (${(error as Error).message})` };
  }
}

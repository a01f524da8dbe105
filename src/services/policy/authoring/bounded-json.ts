/**
 * Bytes → text → JSON value, refusing before anything recursive runs (docs/design.md#policy-lint-bounds-before-ajv:
 * ajv's recursion overflows on 1,000-deep or 10 MB documents): the size first, then well-formed UTF-8, then the
 * nesting depth by a flat scan of the text, and only then JSON.parse (and jsonc-parser for positions).
 */

/** A policy is a few kilobytes; 1 MiB leaves room for large custom ones. */
export const MAX_POLICY_BYTES = 1024 * 1024;
/**
 * The default policy nests 5 deep. A rule's condition sits 3 levels down and nests up to 16
 * operations of 2 levels each (the operation, its argument list), plus a literal list: 36; 40 fits.
 */
export const MAX_POLICY_DEPTH = 40;

export type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };
export type Decoded = { ok: true; text: string } | { ok: false; problem: string; offset: number };

const decoder = new TextDecoder('utf-8', { fatal: true });

export interface Nesting {
  /** Deepest nesting seen, up to `limit + 1`. */
  readonly depth: number;
  /** Offset of the first bracket nested deeper than the limit, or -1. */
  readonly offset: number;
}

/** Deepest nesting of arrays and objects, counting only brackets outside strings; stops past `limit`. */
export function nesting(text: string, limit: number): Nesting {
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
        if (deepest > limit) return { depth: deepest, offset: i };
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return { depth: deepest, offset: -1 };
}

/** Size, UTF-8 (a byte order mark is dropped), not empty, nesting: the checks before any parser runs. */
export function decodeBounded(bytes: Uint8Array, maxBytes: number, maxDepth: number): Decoded {
  if (bytes.length > maxBytes) {
    return { ok: false, problem: `is ${bytes.length} bytes, more than the ${maxBytes} allowed`, offset: 0 };
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, problem: 'is not UTF-8 text', offset: 0 };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { ok: false, problem: 'is empty', offset: 0 };
  const nested = nesting(text, maxDepth);
  if (nested.depth > maxDepth) {
    return { ok: false, problem: `nests more than ${maxDepth} levels deep`, offset: nested.offset };
  }
  return { ok: true, text };
}

export function parseJsonBounded(bytes: Uint8Array, maxBytes: number, maxDepth: number): Parsed {
  const decoded = decodeBounded(bytes, maxBytes, maxDepth);
  if (!decoded.ok) return decoded;
  try {
    return { ok: true, value: JSON.parse(decoded.text) as unknown };
  } catch (error) {
    return { ok: false, problem: `is not JSON (${(error as Error).message})` };
  }
}

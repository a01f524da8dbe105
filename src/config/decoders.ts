/**
 * One small decoder per kind of item value: an `int` item in a range, a 0/1 flag, a `str` item that
 * is required or optional and then converted (a path, a file's content, a list, a structured value…).
 * Each decoder names the confvars `type` it reads, and each problem names its item, so the list
 * start-up prints reads the same whichever decoder found it.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ItemType } from './confvars.js';
import type { Raw } from './retrieve.js';
import type { Parsed } from './settings.js';

/** What a decoder knows of its item besides the value. */
export interface ItemContext {
  /** `name (--option, VARIABLE)`, the start of every problem. */
  readonly label: string;
  /** Relative paths resolve against it. */
  readonly basedir: string;
}

export type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

export interface Decoder<T> {
  /** The confvars.json `type` of the item it decodes. */
  readonly type: ItemType;
  decode(value: Raw, item: ItemContext): Decoded<T>;
}

/** Turns the text of a `str` item into its value. */
export type Convert<T> = (text: string, item: ItemContext) => Decoded<T>;

export const ok = <T>(value: T): Decoded<T> => ({ ok: true, value });
export const bad = <T>(problem: string): Decoded<T> => ({ ok: false, problem });

const INT_PATTERN = /^-?\d{1,15}$/;

/** An `int` item from `min` to `max`; the environment gives text, a default gives a number. */
export function int(min: number, max: number): Decoder<number> {
  return {
    type: 'int',
    decode(value, item) {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && INT_PATTERN.test(value.trim())
            ? Number(value)
            : NaN;
      if (Number.isSafeInteger(n) && n >= min && n <= max) return ok(n);
      return bad(`${item.label} must be an integer from ${min} to ${max}, not "${String(value)}"`);
    },
  };
}

/** An `int` item that is 0 or 1. */
export function flag(): Decoder<boolean> {
  const bit = int(0, 1);
  return {
    type: 'int',
    decode(value, item) {
      const decoded = bit.decode(value, item);
      return decoded.ok ? ok(decoded.value === 1) : decoded;
    },
  };
}

/** A `str` item that must be given (its default counts). */
export function required<T>(convert: Convert<T>): Decoder<T> {
  return {
    type: 'str',
    decode: (value, item) => (value === null ? bad(`${item.label} is required`) : convert(String(value), item)),
  };
}

/** A `str` item that may be left empty: null then. */
export function optional<T>(convert: Convert<T>): Decoder<T | null> {
  return { type: 'str', decode: (value, item) => (value === null ? ok(null) : convert(String(value), item)) };
}

export const asText: Convert<string> = (text) => ok(text);

/** A path, relative to basedir unless absolute. */
export const path: Convert<string> = (text, item) => ok(resolve(item.basedir, text));

/** The content of the file the item names. */
export const fileContent: Convert<Buffer> = (text, item) => {
  const full = isAbsolute(text) ? text : resolve(item.basedir, text);
  try {
    return ok(readFileSync(full));
  } catch (error) {
    return bad(`${item.label}: cannot read ${full} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
};

/** `a;b;c`: each part normalised, empty ones dropped; at least one must remain. */
export function list(normalise: (part: string) => string, atLeastOne: string): Convert<readonly string[]> {
  return (text, item) => {
    const parts = text
      .split(';')
      .map(normalise)
      .filter((p) => p !== '');
    return parts.length > 0 ? ok(parts) : bad(`${item.label} must name at least one ${atLeastOne}`);
  };
}

/** A value with a structure of its own, parsed by config/settings.ts. */
export function structured<T>(parse: (text: string) => Parsed<T>): Convert<T> {
  return (text, item) => {
    const parsed = parse(text);
    return parsed.ok ? ok(parsed.value) : bad(`${item.label}: ${parsed.problem}`);
  };
}

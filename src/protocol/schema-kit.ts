/**
 * Building blocks of the action schemas (TypeBox: one source for the JSON Schema that ajv checks and
 * the TypeScript type the client sees). The bounds here are the column sizes and ranges of storage,
 * so bad input is refused before it reaches SQL and every database answers alike.
 *
 * Two names are ours and must be registered with the validator (see createAjv in src/actions/dispatch.ts):
 * - format `text`: well-formed UTF-16 (no lone surrogates) and no NUL;
 * - format `ip`: an IPv4 or IPv6 address without a zone;
 * - keyword `x-json-dict`: a JSON object at most MAX_DICT_DEPTH deep with at most MAX_DICT_ENTRIES
 *   members and elements in all, at most MAX_DICT_BYTES serialized, no `__proto__`/`constructor`/
 *   `prototype` key, every string `text`.
 */
import { Type } from '@sinclair/typebox';
import type { SchemaOptions, TNull, TSchema, TString, TInteger, TUnion, TUnsafe } from '@sinclair/typebox';

export const MAX_ID = 2_147_483_647;
export const MAX_DICT_DEPTH = 16;
export const MAX_DICT_ENTRIES = 256;
/**
 * Serialized (JSON, UTF-8) size of a stored dict, checked on input and again after every merge
 * (docs/design.md#stored-dicts-and-replies-are-bounded), so that no accepted write can make a later read too large to
 * answer.
 */
export const MAX_DICT_BYTES = 64 * 1024;
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Column sizes shared by the schemas and the migrations. */
export const LIMITS = {
  token: 512, // any presented token; ours are 43 characters
  sessionId: 64, // a presented session id; ours are 22 characters
  /** How many sessions session-list shows at most. */
  sessionList: 100,
  /** How many events user-events shows at most per page. */
  eventsPage: 100,
  ipAddress: 64,
  userAgent: 1024,
  email: 280,
  fullName: 280,
  systemId: 50,
  role: 100,
  sessionDays: 3650,
  passwordWire: 4096,
} as const;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A string of at most `maxLength` UTF-16 units, well-formed and without NUL. */
export function Text(maxLength: number, options: SchemaOptions = {}): TString {
  return Type.String({ maxLength, format: 'text', ...options });
}

/** A database id: an integer in 1…2^31−1 (booleans are not integers). */
export function Id(options: SchemaOptions = {}): TInteger {
  return Type.Integer({ minimum: 1, maximum: MAX_ID, ...options });
}

export function IpAddress(options: SchemaOptions = {}): TString {
  return Type.String({ maxLength: LIMITS.ipAddress, format: 'ip', ...options });
}

/** A bounded JSON object (see the file comment). */
export function JsonDict(options: SchemaOptions = {}): TUnsafe<JsonObject> {
  return Type.Unsafe<JsonObject>({ type: 'object', 'x-json-dict': true, ...options });
}

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A response item that is null only when the action failed (the keyword carries that to the types). */
export interface TNullOnFailure<T extends TSchema> extends TUnion<[T, TNull]> {
  readonly 'x-null-on-failure': true;
}

/**
 * A response item the server always fills on success and may leave null on failure. The client's
 * success type drops the null (`ActionSuccess`), so frontends need no `!` after `if (reply.success)`;
 * the JSON Schema export types it non-null in the success response.
 */
export function NullOnFailure<T extends TSchema>(schema: T): TNullOnFailure<T> {
  return Type.Union([schema, Type.Null()], { 'x-null-on-failure': true }) as TNullOnFailure<T>;
}

/** Datetimes leave the server as ISO 8601 UTC with microseconds and an offset. */
export function DateTimeOut(options: SchemaOptions = {}): TString {
  return Type.String({ description: 'UTC ISO 8601, e.g. 2026-11-22T01:41:29.123000+00:00', ...options });
}

/**
 * The store's tables as plain descriptors, and the two functions that map their rows
 * (docs/design.md#database-urls-times-and-models; docs/design.md#times-and-row-types-by-dialect). A repo holds a row as
 * its records carry it, whatever the database returned: times as epoch milliseconds (like the injected clock),
 * booleans, integers as numbers, JSON columns parsed (`rowToColumns`); and writes each value as its dialect stores it
 * (`columnsToRow`; times: integer ms / `timestamptz(3)` / `DATETIME(3)` in UTC; JSON: text everywhere).
 */
import type { Knex } from 'knex';
import type { JsonObject } from '../../protocol/index.js';
import { boolFromDb, intFromDb, optionalTimeFromDb, timeToDb } from './dialect.js';
import type { Dialect } from './dialect.js';
import type { Row, SessionRecord, UserRecord } from './records.js';

/** A table: its name, its key, and which columns hold a time, a boolean, an integer or JSON. */
export interface Table {
  readonly name: string;
  readonly idColumn: string;
  /** Epoch ms in the repos, the dialect's representation in the database. */
  readonly timeColumns: readonly string[];
  /** SQLite and MariaDB/MySQL return 0/1. */
  readonly boolColumns: readonly string[];
  /** Kept numbers whatever the driver returns. */
  readonly intColumns: readonly string[];
  /** Parsed in the repos, text in the database (compared as text by compare-and-swap). */
  readonly jsonColumns: readonly string[];
}

/** The users table: the user aggregate (credentials, lock-out counters, roles, email marks). */
export const USERS: Table = {
  name: 'users',
  idColumn: 'user_id',
  timeColumns: [
    'created_on',
    'last_updated',
    'last_login_try',
    'last_login_success',
    'locked_until',
    'emailverify_sent_datetime',
    'emailforgotpass_sent_datetime',
    'emailchangepass_sent_datetime',
  ],
  boolColumns: ['email_verified', 'is_active'],
  intColumns: ['user_id', 'failed_login_tries', 'credential_generation'],
  jsonColumns: ['extra_info'],
};

/** The sessions table: the session aggregate (its extra_info_json dict included). */
export const SESSIONS: Table = {
  name: 'sessions',
  idColumn: 'token_hash',
  timeColumns: ['created', 'expires', 'last_seen'],
  boolColumns: [],
  intColumns: ['user_id'],
  jsonColumns: ['extra_info_json'],
};

/** The columns of an issued API key, session-tied or not: the key dict's record. */
const ISSUED_KEY = {
  idColumn: 'tkn_hash',
  timeColumns: ['issued', 'not_valid_before', 'expires'],
  boolColumns: [],
  intColumns: ['user_id', 'apiversion', 'credential_generation'],
  /** The subject: a string or a list of strings. */
  jsonColumns: ['subject'],
} as const;

/** Session-tied API keys: they die with their session (foreign key, ON DELETE CASCADE). */
export const APIKEYS: Table = { name: 'apikeys', ...ISSUED_KEY };

/**
 * No-session API keys. Every key descending from one apikey-new-nosession by refreshes shares its `family_id`, so
 * reuse of a rotated refresh token can revoke the whole family (docs/design.md#api-keys-and-refresh-tokens).
 */
export const NOSESSION_APIKEYS: Table = { name: 'apikeys_nosession', ...ISSUED_KEY };

/**
 * Refresh tokens of no-session keys, stored only as their SHA-256 hash. `rotated_at` is set when the token is
 * exchanged; the row stays until it expires, so presenting it again can be told apart from a token never issued
 * (docs/design.md#api-keys-and-refresh-tokens).
 */
export const REFRESH_TOKENS: Table = {
  name: 'refresh_tokens',
  idColumn: 'token_hash',
  timeColumns: ['issued', 'not_valid_before', 'expires', 'rotated_at'],
  boolColumns: [],
  intColumns: ['user_id', 'credential_generation'],
  jsonColumns: [],
};

/** A row as the repos hold it: the database's row, each value mapped back. Columns the row lacks stay absent. */
export function rowToColumns(table: Table, row: Row): Record<string, unknown> {
  const parsed: Record<string, unknown> = { ...row };
  for (const column of table.jsonColumns) {
    const value = parsed[column];
    if (typeof value === 'string') parsed[column] = JSON.parse(value) as unknown;
  }
  for (const column of table.timeColumns) {
    if (column in parsed) parsed[column] = optionalTimeFromDb(parsed[column]);
  }
  for (const column of table.boolColumns) {
    if (parsed[column] !== undefined) parsed[column] = boolFromDb(parsed[column]);
  }
  for (const column of table.intColumns) {
    const value = parsed[column];
    if (value !== undefined && value !== null) parsed[column] = intFromDb(value);
  }
  return parsed;
}

/** SQL a statement computes for a column instead of a value (`knex.raw`, `knex.ref`). */
export type Sql = Knex.Raw | Knex.Ref<string, Record<string, string>>;

/** Values to write to some columns of a row: each as the repos hold it, or SQL. */
export type ColumnValues<C> = { readonly [K in keyof C]?: C[K] | Sql };

/** A JSON column's value to write as it is (not SQL such as `knex.raw` or `knex.ref`). */
function isJson(value: unknown): boolean {
  if (typeof value === 'string' || Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Values as the database stores them, for an insert or an update: times for the dialect, JSON as text. Absent
 * (undefined) values are left out, so an update leaves their columns as they are.
 */
export function columnsToRow(table: Table, dialect: Dialect, values: object): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(values)) if (value !== undefined) row[column] = value as unknown;
  for (const column of table.timeColumns) {
    const value = row[column];
    if (typeof value === 'number') row[column] = timeToDb(dialect, value);
  }
  for (const column of table.jsonColumns) {
    const value = row[column];
    if (isJson(value)) row[column] = JSON.stringify(value);
  }
  return row;
}

/** A users row as `rowToColumns` maps it. */
export interface UserColumns {
  readonly user_id: number;
  readonly system_id: string;
  readonly full_name: string | null;
  readonly email: string;
  /** The password hash: selected only where a password is verified or replaced. */
  readonly password?: string;
  readonly email_verified: boolean;
  readonly is_active: boolean;
  readonly user_role: string;
  readonly previous_role: string | null;
  readonly extra_info: JsonObject | null;
  readonly created_on: number;
  readonly last_updated: number;
  readonly last_login_try: number | null;
  readonly last_login_success: number | null;
  readonly failed_login_tries: number;
  readonly locked_until: number | null;
  readonly emailverify_sent_datetime: number | null;
  readonly emailforgotpass_sent_datetime: number | null;
  readonly emailchangepass_sent_datetime: number | null;
  /** The revocation fence's generation (docs/design.md#revocation-fence): read only with the standings, never in the record. */
  readonly credential_generation: number;
}

/** A users row's columns, mapped (`rowToColumns`); only those the statement selected are there. */
export const userColumns = (row: Row): UserColumns => rowToColumns(USERS, row) as unknown as UserColumns;

/** The plain record the repos return, from a users row with every column of `USER_COLUMNS`. */
export function userRecord(row: Row): UserRecord {
  const c = userColumns(row);
  return {
    userId: c.user_id,
    systemId: c.system_id,
    fullName: c.full_name ?? null,
    email: c.email,
    emailVerified: c.email_verified,
    isActive: c.is_active,
    userRole: c.user_role,
    previousRole: c.previous_role ?? null,
    extraInfo: c.extra_info ?? null,
    createdOn: c.created_on,
    lastUpdated: c.last_updated,
    lastLoginTry: c.last_login_try ?? null,
    lastLoginSuccess: c.last_login_success ?? null,
    failedLoginTries: c.failed_login_tries,
    lockedUntil: c.locked_until ?? null,
    emailverifySentDatetime: c.emailverify_sent_datetime ?? null,
    emailforgotpassSentDatetime: c.emailforgotpass_sent_datetime ?? null,
    emailchangepassSentDatetime: c.emailchangepass_sent_datetime ?? null,
  };
}

/** A sessions row as `rowToColumns` maps it. */
export interface SessionColumns {
  readonly token_hash: string;
  readonly user_id: number;
  readonly ip_address: string;
  readonly user_agent: string;
  readonly created: number;
  readonly expires: number;
  readonly extra_info_json: JsonObject | null;
  readonly session_id: string;
  readonly last_seen: number | null;
}

/** The plain record the repos return, from a sessions row with every column of `SESSION_COLUMNS`. */
export function sessionRecord(row: Row): SessionRecord {
  const c = rowToColumns(SESSIONS, row) as unknown as SessionColumns;
  return {
    tokenHash: c.token_hash,
    sessionId: c.session_id,
    userId: c.user_id,
    ipAddress: c.ip_address,
    userAgent: c.user_agent,
    created: c.created,
    expires: c.expires,
    lastSeen: c.last_seen ?? c.created,
    extraInfo: c.extra_info_json ?? {},
  };
}

/** A user's second factors (docs/design.md#second-factors): TOTP secrets sealed, passkeys' public keys. */
export const USER_FACTORS: Table = {
  name: 'user_factors',
  idColumn: 'factor_id',
  timeColumns: ['created', 'last_used'],
  boolColumns: ['active'],
  intColumns: ['user_id', 'last_step', 'sign_count'],
  jsonColumns: ['transports'],
};

/** Recovery codes, stored only as their SHA-256 hash; a used one is deleted. */
export const RECOVERY_CODES: Table = {
  name: 'recovery_codes',
  idColumn: 'code_hash',
  timeColumns: ['created'],
  boolColumns: [],
  intColumns: ['user_id'],
  jsonColumns: [],
};

/** The tickets between a login's two steps, stored only as their SHA-256 hash. */
export const LOGIN_TICKETS: Table = {
  name: 'login_tickets',
  idColumn: 'ticket_hash',
  timeColumns: ['created', 'expires'],
  boolColumns: [],
  intColumns: ['user_id', 'credential_generation', 'wrong_tries'],
  jsonColumns: [],
};

/** The challenges of passkey ceremonies, stored only as their SHA-256 hash. */
export const PASSKEY_CHALLENGES: Table = {
  name: 'passkey_challenges',
  idColumn: 'challenge_hash',
  timeColumns: ['expires'],
  boolColumns: [],
  intColumns: ['user_id'],
  jsonColumns: [],
};

/**
 * The store's Objection models, one class per table, and their one base
 * (docs/design.md#database-urls-times-and-models; docs/design.md#times-and-row-types-by-dialect). A model holds a row as the repos' records carry it, whatever the
 * database returned: times as epoch milliseconds (like the injected clock), booleans, integers as numbers, JSON columns
 * parsed; and writes each value as its dialect stores it (times: integer ms / `timestamptz(3)` / `DATETIME(3)` in UTC;
 * JSON: text everywhere). A model class is bound to one store's knex by `bindModels` (at the end), which also sets
 * the dialect: several stores (tests, the primary beside its workers) may be open in one process.
 */
import type { Knex } from 'knex';
import { Model } from 'objection';
import type { Pojo } from 'objection';
import type { JsonObject } from '../../protocol/index.js';
import { boolFromDb, intFromDb, optionalTimeFromDb, timeToDb } from './dialect.js';
import type { Dialect } from './dialect.js';
import type { SessionRecord, UserRecord } from './records.js';

/** A value written to a JSON column as it is (not a builder such as Objection's `raw` or `ref`). */
function isJson(value: unknown): boolean {
  if (typeof value === 'string' || Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The one base: each model lists its time, boolean, integer and JSON columns for it to convert. */
export abstract class StoredModel extends Model {
  /** The dialect times are written for; set on the class bound to a store's knex. */
  static dialect: Dialect = 'sqlite';
  /** Columns holding a time: epoch ms in the model, the dialect's representation in the database. */
  static timeColumns: readonly string[] = [];
  /** Columns holding a boolean (SQLite and MariaDB/MySQL return 0/1). */
  static boolColumns: readonly string[] = [];
  /** Columns holding an integer (kept numbers whatever the driver returns). */
  static intColumns: readonly string[] = [];
  /** Columns holding JSON: parsed in the model, text in the database (compared as text by compare-and-swap). */
  static jsonColumns: readonly string[] = [];

  /** A time as this dialect stores it, for the statements written in SQL (counters, compare-and-swap, hot). */
  static dbTime(ms: number): number | Date {
    return timeToDb(this.dialect, ms);
  }

  /**
   * A row as the model holds it, without a model instance: for the hot reads, where instantiating two
   * models per request cost more than the statement itself. Columns the row lacks stay absent.
   */
  static parseRow(row: Pojo): Pojo {
    const parsed: Pojo = { ...row };
    for (const column of this.jsonColumns) {
      const value: unknown = parsed[column];
      if (typeof value === 'string') parsed[column] = JSON.parse(value) as unknown;
    }
    for (const column of this.timeColumns) {
      if (column in parsed) parsed[column] = optionalTimeFromDb(parsed[column]);
    }
    for (const column of this.boolColumns) {
      if (parsed[column] !== undefined) parsed[column] = boolFromDb(parsed[column]);
    }
    for (const column of this.intColumns) {
      const value: unknown = parsed[column];
      if (value !== undefined && value !== null) parsed[column] = intFromDb(value);
    }
    return parsed;
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    return (this.constructor as typeof StoredModel).parseRow(super.$parseDatabaseJson(json));
  }

  override $formatDatabaseJson(json: Pojo): Pojo {
    const formatted = super.$formatDatabaseJson(json);
    const model = this.constructor as typeof StoredModel;
    for (const column of model.timeColumns) {
      const value: unknown = formatted[column];
      if (typeof value === 'number') formatted[column] = model.dbTime(value);
    }
    for (const column of model.jsonColumns) {
      const value: unknown = formatted[column];
      if (isJson(value)) formatted[column] = JSON.stringify(value);
    }
    return formatted;
  }
}

/** A row of the users table: the user aggregate (credentials, lock-out counters, roles, email marks). */
export class UserModel extends StoredModel {
  static override tableName = 'users';
  static override idColumn = 'user_id';
  static override jsonColumns = ['extra_info'];
  static override timeColumns = [
    'created_on',
    'last_updated',
    'last_login_try',
    'last_login_success',
    'locked_until',
    'emailverify_sent_datetime',
    'emailforgotpass_sent_datetime',
    'emailchangepass_sent_datetime',
  ];
  static override boolColumns = ['email_verified', 'is_active'];
  static override intColumns = ['user_id', 'failed_login_tries', 'credential_generation'];

  declare user_id: number;
  declare system_id: string;
  declare full_name: string | null;
  declare email: string;
  /** The password hash: selected only where a password is verified or replaced. */
  declare password?: string;
  declare email_verified: boolean;
  declare is_active: boolean;
  declare user_role: string;
  declare previous_role: string | null;
  declare extra_info: JsonObject | null;
  declare created_on: number;
  declare last_updated: number;
  declare last_login_try: number | null;
  declare last_login_success: number | null;
  declare failed_login_tries: number;
  declare locked_until: number | null;
  declare emailverify_sent_datetime: number | null;
  declare emailforgotpass_sent_datetime: number | null;
  declare emailchangepass_sent_datetime: number | null;
  /** The revocation fence's generation (docs/design.md#revocation-fence): read only with the standings, never in the record. */
  declare credential_generation: number;

  /** A row's record without a model instance (the hot reads; see StoredModel.parseRow). */
  static recordOf(row: Pojo): UserRecord {
    return userRecordOf(this.parseRow(row) as UserColumns);
  }

  /** The plain record the repos return. */
  toRecord(): UserRecord {
    return userRecordOf(this);
  }
}

/** The model's columns, as an instance or a parsed row holds them. */
type UserColumns = Omit<UserModel, keyof StoredModel>;

function userRecordOf(c: UserColumns): UserRecord {
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

/** A row of the sessions table: the session aggregate (its extra_info_json dict included). */
export class SessionModel extends StoredModel {
  static override tableName = 'sessions';
  static override idColumn = 'token_hash';
  static override jsonColumns = ['extra_info_json'];
  static override timeColumns = ['created', 'expires'];
  static override intColumns = ['user_id'];

  declare token_hash: string;
  declare user_id: number;
  declare ip_address: string;
  declare user_agent: string;
  declare created: number;
  declare expires: number;
  declare extra_info_json: JsonObject | null;

  /** A row's record without a model instance (the hot reads; see StoredModel.parseRow). */
  static recordOf(row: Pojo): SessionRecord {
    return sessionRecordOf(this.parseRow(row) as SessionColumns);
  }

  /** The plain record the repos return. */
  toRecord(): SessionRecord {
    return sessionRecordOf(this);
  }
}

/** The model's columns, as an instance or a parsed row holds them. */
type SessionColumns = Omit<SessionModel, keyof StoredModel>;

function sessionRecordOf(c: SessionColumns): SessionRecord {
  return {
    tokenHash: c.token_hash,
    userId: c.user_id,
    ipAddress: c.ip_address,
    userAgent: c.user_agent,
    created: c.created,
    expires: c.expires,
    extraInfo: c.extra_info_json ?? {},
  };
}

/** The fields of an issued API key, session-tied or not: the key dict's record. */
export abstract class IssuedKeyModel extends StoredModel {
  static override get idColumn(): string {
    return 'tkn_hash';
  }
  static override timeColumns = ['issued', 'not_valid_before', 'expires'];
  static override intColumns = ['user_id', 'apiversion', 'credential_generation'];
  /** A string or a list of strings. */
  static override jsonColumns = ['subject'];

  declare tkn_hash: string;
  declare credential_generation: number;
  declare user_id: number;
  declare user_role: string;
  declare issuer: string;
  declare audience: string;
  declare subject: string | string[];
  declare apiversion: number;
  declare ip_address: string;
  declare issued: number;
  declare not_valid_before: number;
  declare expires: number;
}

/** A session-tied API key: dies with its session (foreign key, ON DELETE CASCADE). */
export class ApiKeyModel extends IssuedKeyModel {
  static override get tableName(): string {
    return 'apikeys';
  }

  declare session_hash: string;
  declare user_agent: string;
}

/**
 * A no-session API key (table `apikeys_nosession`). Every key descending from one
 * apikey-new-nosession by refreshes shares its `family_id`, so reuse of a rotated refresh token can
 * revoke the whole family (docs/design.md#api-keys-and-refresh-tokens).
 */
export class NoSessionApiKeyModel extends IssuedKeyModel {
  static override get tableName(): string {
    return 'apikeys_nosession';
  }

  declare family_id: string;
}

/**
 * A refresh token of a no-session key (table `refresh_tokens`), stored only as its SHA-256 hash.
 * `rotated_at` is set when the token is exchanged; the row stays until it expires, so presenting it
 * again can be told apart from a token never issued (docs/design.md#api-keys-and-refresh-tokens).
 */
export class RefreshTokenModel extends StoredModel {
  static override get tableName(): string {
    return 'refresh_tokens';
  }
  static override get idColumn(): string {
    return 'token_hash';
  }
  static override timeColumns = ['issued', 'not_valid_before', 'expires', 'rotated_at'];
  static override intColumns = ['user_id', 'credential_generation'];

  declare token_hash: string;
  declare family_id: string;
  declare apikey_hash: string;
  declare user_id: number;
  declare credential_generation: number;
  declare issued: number;
  declare not_valid_before: number;
  declare expires: number;
  declare rotated_at: number | null;
}

/**
 * The store's model classes bound to one store's knex (Objection's `bindKnex` makes a subclass per
 * knex, so several stores can be open in one process), with the dialect they write for: the one
 * binding every repo takes its models from.
 */
export interface Models {
  readonly User: typeof UserModel;
  readonly Session: typeof SessionModel;
  readonly ApiKey: typeof ApiKeyModel;
  readonly NoSessionApiKey: typeof NoSessionApiKeyModel;
  readonly RefreshToken: typeof RefreshTokenModel;
}

export function bindModels(knex: Knex, dialect: Dialect): Models {
  const bind = <M extends typeof StoredModel>(model: M): M => {
    const bound = model.bindKnex(knex);
    bound.dialect = dialect;
    return bound;
  };
  return {
    User: bind(UserModel),
    Session: bind(SessionModel),
    ApiKey: bind(ApiKeyModel),
    NoSessionApiKey: bind(NoSessionApiKeyModel),
    RefreshToken: bind(RefreshTokenModel),
  };
}

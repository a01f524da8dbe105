/** Plain records the repos return: never raw rows, whose types differ per database (trap S4). */
import type { JsonObject } from '../protocol/index.js';
import { boolFromDb, intFromDb, jsonFromDb, optionalTimeFromDb, timeFromDb } from './dialect.js';

export interface UserRecord {
  readonly userId: number;
  readonly systemId: string;
  readonly fullName: string | null;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly isActive: boolean;
  readonly userRole: string;
  readonly previousRole: string | null;
  readonly extraInfo: JsonObject | null;
  readonly createdOn: number;
  readonly lastUpdated: number;
  readonly lastLoginTry: number | null;
  readonly lastLoginSuccess: number | null;
  readonly failedLoginTries: number;
  readonly lockedUntil: number | null;
  readonly emailverifySentDatetime: number | null;
  readonly emailforgotpassSentDatetime: number | null;
  readonly emailchangepassSentDatetime: number | null;
}

export interface SessionRecord {
  readonly tokenHash: string;
  readonly userId: number;
  readonly ipAddress: string;
  readonly userAgent: string;
  readonly created: number;
  readonly expires: number;
  readonly extraInfo: JsonObject;
}

/** Every users column but the password hash, which leaves the users repo only for verification. */
export const USER_COLUMNS = [
  'user_id',
  'system_id',
  'full_name',
  'email',
  'email_verified',
  'is_active',
  'user_role',
  'previous_role',
  'extra_info',
  'created_on',
  'last_updated',
  'last_login_try',
  'last_login_success',
  'failed_login_tries',
  'locked_until',
  'emailverify_sent_datetime',
  'emailforgotpass_sent_datetime',
  'emailchangepass_sent_datetime',
] as const;

export const SESSION_COLUMNS = [
  'token_hash',
  'user_id',
  'ip_address',
  'user_agent',
  'created',
  'expires',
  'extra_info_json',
] as const;

export type Row = Readonly<Record<string, unknown>>;

export function userFromRow(row: Row, prefix = ''): UserRecord {
  const col = (name: string): unknown => row[prefix + name];
  return {
    userId: intFromDb(col('user_id')),
    systemId: String(col('system_id')),
    fullName: col('full_name') === null ? null : String(col('full_name')),
    email: String(col('email')),
    emailVerified: boolFromDb(col('email_verified')),
    isActive: boolFromDb(col('is_active')),
    userRole: String(col('user_role')),
    previousRole: col('previous_role') === null ? null : String(col('previous_role')),
    extraInfo: jsonFromDb<JsonObject | null>(col('extra_info'), null),
    createdOn: timeFromDb(col('created_on')),
    lastUpdated: timeFromDb(col('last_updated')),
    lastLoginTry: optionalTimeFromDb(col('last_login_try')),
    lastLoginSuccess: optionalTimeFromDb(col('last_login_success')),
    failedLoginTries: intFromDb(col('failed_login_tries')),
    lockedUntil: optionalTimeFromDb(col('locked_until')),
    emailverifySentDatetime: optionalTimeFromDb(col('emailverify_sent_datetime')),
    emailforgotpassSentDatetime: optionalTimeFromDb(col('emailforgotpass_sent_datetime')),
    emailchangepassSentDatetime: optionalTimeFromDb(col('emailchangepass_sent_datetime')),
  };
}

export function sessionFromRow(row: Row, prefix = ''): SessionRecord {
  const col = (name: string): unknown => row[prefix + name];
  return {
    tokenHash: String(col('token_hash')),
    userId: intFromDb(col('user_id')),
    ipAddress: String(col('ip_address')),
    userAgent: String(col('user_agent')),
    created: timeFromDb(col('created')),
    expires: timeFromDb(col('expires')),
    extraInfo: jsonFromDb<JsonObject>(col('extra_info_json'), {}),
  };
}

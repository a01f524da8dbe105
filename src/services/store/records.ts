/**
 * Plain records the repos return: never raw rows, whose types differ per database
 * (docs/design.md#times-and-row-types-by-dialect). The tables' descriptors (tables.ts) map the rows; the records carry
 * times as epoch ms, like the clock.
 */
import type { JsonObject } from '../../protocol/index.js';

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
  /** Its public id (docs/design.md#devices): names the session to its user, never the token. */
  readonly sessionId: string;
  readonly userId: number;
  readonly ipAddress: string;
  readonly userAgent: string;
  readonly created: number;
  readonly expires: number;
  /** When session-exists last saw it, to within SESSION_SEEN_EVERY_MS; its creation at first. */
  readonly lastSeen: number;
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
  'session_id',
  'last_seen',
] as const;

export type Row = Readonly<Record<string, unknown>>;

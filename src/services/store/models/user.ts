/** A row of the users table: the user aggregate (credentials, lock-out counters, roles, email marks). */
import type { Pojo } from 'objection';
import type { JsonObject } from '../../../protocol/index.js';
import type { UserRecord } from '../records.js';
import { StoredModel } from './stored-model.js';

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
    return recordOfColumns(this.parseRow(row) as Columns);
  }

  /** The plain record the repos return. */
  toRecord(): UserRecord {
    return recordOfColumns(this);
  }
}

/** The model's columns, as an instance or a parsed row holds them. */
type Columns = Omit<UserModel, keyof StoredModel>;

function recordOfColumns(c: Columns): UserRecord {
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

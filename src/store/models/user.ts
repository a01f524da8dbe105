/** A row of the users table: the user aggregate (credentials, lock-out counters, roles, email marks). */
import type { JsonObject } from '../../protocol/index.js';
import type { UserRecord } from '../records.js';
import { StoredModel, msOf, optionalMsOf } from './stored-model.js';

export class UserModel extends StoredModel {
  static override tableName = 'users';
  static override idColumn = 'user_id';
  static override jsonAttributes = ['extra_info'];
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
  static override intColumns = ['user_id', 'failed_login_tries'];

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
  declare created_on: Date;
  declare last_updated: Date;
  declare last_login_try: Date | null;
  declare last_login_success: Date | null;
  declare failed_login_tries: number;
  declare locked_until: Date | null;
  declare emailverify_sent_datetime: Date | null;
  declare emailforgotpass_sent_datetime: Date | null;
  declare emailchangepass_sent_datetime: Date | null;

  /** The plain record the repos return (times as epoch ms). */
  toRecord(): UserRecord {
    return {
      userId: this.user_id,
      systemId: this.system_id,
      fullName: this.full_name ?? null,
      email: this.email,
      emailVerified: this.email_verified,
      isActive: this.is_active,
      userRole: this.user_role,
      previousRole: this.previous_role ?? null,
      extraInfo: this.extra_info ?? null,
      createdOn: msOf(this.created_on),
      lastUpdated: msOf(this.last_updated),
      lastLoginTry: optionalMsOf(this.last_login_try),
      lastLoginSuccess: optionalMsOf(this.last_login_success),
      failedLoginTries: this.failed_login_tries,
      lockedUntil: optionalMsOf(this.locked_until),
      emailverifySentDatetime: optionalMsOf(this.emailverify_sent_datetime),
      emailforgotpassSentDatetime: optionalMsOf(this.emailforgotpass_sent_datetime),
      emailchangepassSentDatetime: optionalMsOf(this.emailchangepass_sent_datetime),
    };
  }
}

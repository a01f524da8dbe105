import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTimeOut, Nullable } from './schema-kit.js';

/**
 * The user info dict (docs/design.md#who-may-call-what): the spec's keys plus the reference's (`email_verified`,
 * `failed_login_tries`, `last_updated`, the three `*_sent_datetime`). Never the password. Every
 * family that answers with a user (lookups, edits, locks) uses this one dict.
 */
export const UserInfo = Type.Object({
  user_id: Type.Integer(),
  system_id: Type.String(),
  full_name: Nullable(Type.String()),
  email: Type.String(),
  email_verified: Type.Boolean(),
  is_active: Type.Boolean(),
  user_role: Type.String(),
  extra_info: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_on: DateTimeOut(),
  last_updated: DateTimeOut(),
  last_login_try: Nullable(DateTimeOut()),
  last_login_success: Nullable(DateTimeOut()),
  failed_login_tries: Type.Integer(),
  emailverify_sent_datetime: Nullable(DateTimeOut()),
  emailforgotpass_sent_datetime: Nullable(DateTimeOut()),
  emailchangepass_sent_datetime: Nullable(DateTimeOut()),
});

export type UserInfoDict = Static<typeof UserInfo>;

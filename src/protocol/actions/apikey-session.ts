import { Type } from '@sinclair/typebox';
import { LIMITS, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { APIKEY_RATE } from '../rate-class.js';
import {
  ApiKeyDict,
  ApiVersion,
  Audience,
  IssuedKey,
  Issuer,
  KeyIp,
  NotValidBefore,
  Subject,
  UserId,
  UserRole,
} from './apikey-items.js';

/** The session-tied API key dict of a request: the caller and the key. */
const KeyRequest = Type.Object({ apikey_dict: ApiKeyDict, user_id: UserId, user_role: UserRole });

export const apikeySessionActions = {
  'apikey-new': {
    summary:
      "Issues an API key tied to a session: the session's user, role, IP address and user agent must equal the " +
      "request's, and the policy must allow `create` on the user's own `apikey`. The key dies with the session.",
    changesState: true,
    rate: APIKEY_RATE,
    failures: ['apikey_issue_denied', 'caller_not_valid', 'apikey_session_invalid', 'step_up_required'],
    input: Type.Object({
      issuer: Issuer,
      audience: Audience,
      subject: Subject,
      apiversion: ApiVersion,
      expires_days: Type.Integer({
        minimum: 1,
        maximum: 365,
        description: 'lifetime of the key in days (at most 365)',
      }),
      not_valid_before: NotValidBefore('the key'),
      user_id: UserId,
      user_role: UserRole,
      ip_address: KeyIp,
      user_agent: Text(LIMITS.userAgent, { description: "the end user's user agent (the session's)" }),
      session_token: Text(LIMITS.token, { description: 'the session the key is tied to' }),
    }),
    output: Type.Object(IssuedKey),
  },
  'apikey-verify': {
    summary:
      'Verifies a session-tied key: the policy allows `view` on it, its session is alive, nbf ≤ now < exp, and every ' +
      'field of the dict equals the stored record. The IP address is not compared (the frontend may compare `ipa`).',
    changesState: false,
    rate: APIKEY_RATE,
    failures: ['apikey_malformed', 'apikey_access_denied', 'caller_not_valid', 'apikey_invalid'],
    input: KeyRequest,
    output: Type.Object({}),
  },
  'apikey-revoke': {
    summary:
      'Revokes a session-tied key (the policy must allow `delete` on it; the dict must equal the stored record).',
    changesState: true,
    rate: APIKEY_RATE,
    failures: ['apikey_malformed', 'apikey_access_denied', 'caller_not_valid', 'apikey_invalid'],
    input: KeyRequest,
    output: Type.Object({}),
  },
} as const satisfies Record<string, ActionSpec>;

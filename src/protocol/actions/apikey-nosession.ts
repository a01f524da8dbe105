import { Type } from '@sinclair/typebox';
import { LIMITS, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { APIKEY_RATE } from '../rate-class.js';
import {
  ApiKeyDict,
  ApiVersion,
  Audience,
  IssuedNoSessionKey,
  Issuer,
  KeyIp,
  NotValidBefore,
  RefreshToken,
  Seconds,
  Subject,
  UserId,
  UserRole,
} from './apikey-items.js';

const KeyRequest = Type.Object({ apikey_dict: ApiKeyDict, user_id: UserId, user_role: UserRole });

const Lifetimes = {
  expires_seconds: Seconds('the key'),
  not_valid_before: NotValidBefore('the key'),
  refresh_expires: Seconds('the refresh token'),
  refresh_nbf: NotValidBefore('the refresh token'),
};

export const apikeyNosessionActions = {
  'apikey-new-nosession': {
    summary:
      "Issues an API key tied to no session, with a refresh token; the policy must allow `create` on the user's " +
      'own `apikey`.',
    changesState: true,
    rate: APIKEY_RATE,
    failures: ['apikey_issue_denied', 'caller_not_valid', 'step_up_required'],
    input: Type.Object({
      issuer: Issuer,
      audience: Audience,
      subject: Subject,
      apiversion: ApiVersion,
      ...Lifetimes,
      user_id: UserId,
      user_role: UserRole,
      ip_address: KeyIp,
      session_token: Type.Optional(
        Text(LIMITS.token, {
          description: "for a user with a second factor: the user's session, which proved it within stepupwindow",
        }),
      ),
    }),
    output: IssuedNoSessionKey,
  },
  'apikey-verify-nosession': {
    summary:
      'Verifies a no-session key: the policy allows `view` on it, nbf ≤ now < exp, and every field of the dict ' +
      'equals the stored record. The IP address is not compared (the frontend may compare `ipa`).',
    changesState: false,
    rate: APIKEY_RATE,
    failures: ['apikey_malformed', 'apikey_access_denied', 'caller_not_valid', 'apikey_invalid'],
    input: KeyRequest,
    output: Type.Object({}),
  },
  'apikey-revoke-nosession': {
    summary: 'Revokes a no-session key and its refresh token (the policy must allow `delete` on it).',
    changesState: true,
    rate: APIKEY_RATE,
    failures: ['apikey_malformed', 'apikey_access_denied', 'caller_not_valid', 'apikey_invalid'],
    input: KeyRequest,
    output: Type.Object({}),
  },
  'apikey-revokeall-nosession': {
    summary:
      "Revokes every no-session key and refresh token of the key's user; the key presented must itself be valid " +
      'and unexpired, and the policy must allow `delete` on it.',
    changesState: true,
    rate: APIKEY_RATE,
    failures: ['apikey_malformed', 'apikey_access_denied', 'caller_not_valid', 'apikey_invalid'],
    input: KeyRequest,
    output: Type.Object({
      deleted_keys: NullOnFailure(Type.Integer({ description: 'how many keys were revoked' })),
      revoked_keys: NullOnFailure(Type.Integer({ description: "the same number, under the reference's name" })),
    }),
  },
  'apikey-refresh-nosession': {
    summary:
      'Exchanges a valid refresh token (refresh_nbf ≤ now < refresh_expires; the key may have expired) for a new key ' +
      "and refresh token: iss, ver, aud, sub, uid and rol are the old key's, the IP address and lifetimes the " +
      "request's. A rotated token presented again after `refreshgrace` seconds revokes the key's whole family.",
    changesState: true,
    rate: APIKEY_RATE,
    failures: [
      'apikey_malformed',
      'apikey_owner_mismatch',
      'apikey_issue_denied',
      'caller_not_valid',
      'refresh_token_invalid',
      'refresh_token_rotated',
      'apikey_invalid',
    ],
    input: Type.Object({
      apikey_dict: ApiKeyDict,
      user_id: UserId,
      user_role: UserRole,
      refresh_token: RefreshToken,
      ip_address: KeyIp,
      ...Lifetimes,
    }),
    output: IssuedNoSessionKey,
  },
} as const satisfies Record<string, ActionSpec>;

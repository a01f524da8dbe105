/**
 * Items shared by the API key declarations (apikey-session.ts, apikey-nosession.ts). Lifetimes are
 * bounded (keys and refresh tokens at most a year; not-valid-before at least 0 and, checked by the
 * handlers, before expiry), strings by their column sizes.
 */
import { Type } from '@sinclair/typebox';
import { DateTimeOut, Id, IpAddress, JsonDict, LIMITS, MAX_ID, NullOnFailure, Text } from '../schema-kit.js';

export const YEAR_SECONDS = 365 * 86_400;
/** The longest string in the key dict's `iss`, `aud` and each `sub` entry (their column size). */
export const KEY_TEXT = 280;
/** At most this many endpoints in a `sub` list. */
export const MAX_SUBJECTS = 64;

export const Issuer = Text(KEY_TEXT, { description: 'who issues the key (the frontend), its `iss`' });
export const Audience = Text(KEY_TEXT, { description: 'the service the key is for, its `aud`' });
export const Subject = Type.Union(
  [Text(KEY_TEXT), Type.Array(Text(KEY_TEXT), { minItems: 1, maxItems: MAX_SUBJECTS })],
  {
    description: 'the endpoints the key is for (a string or a list of strings), its `sub`',
  },
);
export const ApiVersion = Type.Union(
  [Type.Integer({ minimum: 0, maximum: MAX_ID }), Type.String({ pattern: '^[0-9]{1,9}$' })],
  { description: "the API version the key is valid for, its `ver` (an int; the reference's digit string is accepted)" },
);
export const NotValidBefore = (what: string) =>
  Type.Number({ minimum: 0, maximum: YEAR_SECONDS, description: `seconds after now before ${what} becomes valid` });
export const Seconds = (what: string) =>
  Type.Integer({ minimum: 1, maximum: YEAR_SECONDS, description: `lifetime of ${what} in seconds (at most a year)` });

export const UserId = Id({ description: 'the user making the request' });
export const UserRole = Text(LIMITS.role, { description: "the user's role (must be the stored one)" });
export const KeyIp = IpAddress({ description: "the end user's IP address, bound into the key as `ipa`" });
export const ApiKeyDict = JsonDict({
  description: 'the key dict, parsed from the apikey JSON string (and decrypted or verified by the frontend)',
});
export const RefreshToken = Text(LIMITS.token, { description: 'the refresh token issued with the key' });

export const IssuedKey = {
  apikey: NullOnFailure(Type.String({ description: 'the key dict as a JSON string' })),
  expires: NullOnFailure(DateTimeOut({ description: 'when the key expires' })),
};

export const IssuedNoSessionKey = Type.Object({
  ...IssuedKey,
  refresh_token: NullOnFailure(
    Type.String({ description: 'the refresh token (43 characters); only its hash is kept' }),
  ),
  refresh_token_expires: NullOnFailure(DateTimeOut({ description: 'when the refresh token expires' })),
});

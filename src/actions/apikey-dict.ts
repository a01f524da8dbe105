/**
 * The API key dict (docs/design.md#api-keys-and-refresh-tokens): built from the stored record in the reference's key
 * order, and checked on the way back in. A presented dict must hold exactly the issued fields with their
 * types, and then equal, field for field, the dict rebuilt from the stored record: an edited dict, a
 * forged `uid`/`rol` or a far-future `exp` never verifies. Times are whole milliseconds, so the
 * rebuilt dict is the one issued on every database.
 */
import { jsonEqual } from '../domain/json-equal.js';
import { formatDateTime } from '../protocol/index.js';
import type { JsonObject, JsonValue } from '../protocol/index.js';
import type { KeyRecord, SessionKeyRecord } from '../services/store/api-keys.js';

export type KeyKind = 'session' | 'nosession';

/** The fields of a key dict in the reference's order; `usa` only for session-tied keys. */
const FIELDS: Readonly<Record<KeyKind, readonly string[]>> = {
  session: ['iss', 'ver', 'uid', 'rol', 'usa', 'aud', 'sub', 'ipa', 'tkn', 'iat', 'nbf', 'exp'],
  nosession: ['iss', 'ver', 'uid', 'rol', 'aud', 'sub', 'ipa', 'tkn', 'iat', 'nbf', 'exp'],
};

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The dict of a stored key and its token (the record holds only the token's hash). */
export function keyDict(record: KeyRecord | SessionKeyRecord, tkn: string): JsonObject {
  const subject: JsonValue = typeof record.subject === 'string' ? record.subject : [...record.subject];
  return {
    iss: record.issuer,
    ver: record.apiversion,
    uid: record.userId,
    rol: record.userRole,
    ...('userAgent' in record ? { usa: record.userAgent } : {}),
    aud: record.audience,
    sub: subject,
    ipa: record.ipAddress,
    tkn,
    iat: formatDateTime(record.issued),
    nbf: formatDateTime(record.notValidBefore),
    exp: formatDateTime(record.expires),
  };
}

/** What the handlers read from a presented dict once its shape is right. */
export interface PresentedKey {
  readonly dict: JsonObject;
  readonly uid: number;
  readonly rol: string;
  readonly tkn: string;
}

const isText = (v: JsonValue | undefined): v is string => typeof v === 'string' && v.length <= 1024;

/** The presented dict when it holds exactly the fields of a `kind` key with their types; else null. */
export function presentedKey(dict: JsonObject, kind: KeyKind): PresentedKey | null {
  const fields = FIELDS[kind];
  const keys = Object.keys(dict);
  if (keys.length !== fields.length || !fields.every((f) => Object.prototype.hasOwnProperty.call(dict, f))) {
    return null;
  }
  const { uid, rol, tkn, ver, sub } = dict;
  if (typeof uid !== 'number' || !Number.isSafeInteger(uid) || typeof ver !== 'number') return null;
  if (typeof rol !== 'string' || typeof tkn !== 'string' || !TOKEN.test(tkn)) return null;
  const texts = ['iss', 'aud', 'ipa', 'iat', 'nbf', 'exp', ...(kind === 'session' ? ['usa'] : [])];
  if (!texts.every((f) => isText(dict[f]))) return null;
  if (!isText(sub) && !(Array.isArray(sub) && sub.every(isText))) return null;
  return { dict, uid, rol, tkn };
}

/** Whether the presented dict is the stored key's, and the key is inside its window at `now`. */
export function matchesStored(presented: PresentedKey, record: KeyRecord, now: number, window: boolean): boolean {
  if (!jsonEqual(presented.dict, keyDict(record, presented.tkn))) return false;
  return !window || (record.notValidBefore <= now && now < record.expires);
}

/**
 * The `update_dict` of user-edit and internal-user-edit: which items it may hold, their types, and
 * their values normalised as they are stored. Pure: the handlers check permissions and write.
 *
 * Every item is read through Object.keys of the validated dict (no `__proto__`, `constructor` or
 * `prototype` key passes the schema), and the result is a fresh typed object, so nothing of the
 * request can reach a prototype (docs/design.md#prototype-keys).
 */
import { LIMITS, normaliseEmail } from '../protocol/index.js';
import type { JsonObject, Problem } from '../protocol/index.js';
import { checkSignupEmail } from './email.js';
import { holdsLink, normaliseFullName } from './full-name.js';

export type EditableKey = 'full_name' | 'email' | 'email_verified' | 'is_active' | 'user_role' | 'extra_info';

const TYPES: Readonly<Record<EditableKey, 'str' | 'bool' | 'dict'>> = {
  full_name: 'str',
  email: 'str',
  email_verified: 'bool',
  is_active: 'bool',
  user_role: 'str',
  extra_info: 'dict',
};

export interface UserUpdate {
  readonly fullName?: string;
  readonly email?: string;
  readonly emailVerified?: boolean;
  readonly isActive?: boolean;
  readonly userRole?: string;
  readonly extraInfo?: JsonObject;
}

export type ParsedUpdate =
  | { readonly ok: true; readonly update: UserUpdate; readonly keys: ReadonlySet<EditableKey> }
  | { readonly ok: false; readonly code: 'forbidden_update_keys' }
  | { readonly ok: false; readonly code: 'invalid_params'; readonly problems: readonly Problem[] };

const isEditable = (key: string): key is EditableKey => Object.prototype.hasOwnProperty.call(TYPES, key);

function typeFits(kind: 'str' | 'bool' | 'dict', value: unknown): boolean {
  if (kind === 'str') return typeof value === 'string';
  if (kind === 'bool') return typeof value === 'boolean';
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Reads `dict` against the items `allowed`: an item outside them (a forbidden column, an unknown
 * name) refuses the whole edit; an item of the wrong type is an invalid parameter named
 * `update_dict.<item>`.
 */
export function parseUpdate(dict: JsonObject, allowed: ReadonlySet<EditableKey>): ParsedUpdate {
  const keys = Object.keys(dict);
  if (keys.some((key) => !isEditable(key) || !allowed.has(key))) return { ok: false, code: 'forbidden_update_keys' };
  const problems: Problem[] = [];
  const update: { -readonly [K in keyof UserUpdate]: UserUpdate[K] } = {};
  for (const key of keys as EditableKey[]) {
    const value = dict[key];
    const kind = TYPES[key];
    if (!typeFits(kind, value)) {
      problems.push({ param: `update_dict.${key}`, problem: 'incorrect type', required_type: kind });
      continue;
    }
    if (key === 'full_name') update.fullName = value as string;
    else if (key === 'email') update.email = value as string;
    else if (key === 'email_verified') update.emailVerified = value as boolean;
    else if (key === 'is_active') update.isActive = value as boolean;
    else if (key === 'user_role') update.userRole = value as string;
    else update.extraInfo = value as JsonObject;
  }
  if (problems.length > 0) return { ok: false, code: 'invalid_params', problems };
  return { ok: true, update, keys: new Set(keys as EditableKey[]) };
}

/**
 * A full name as stored (NFKC, blanks squeezed, not HTML-escaped), or null when it is empty, longer
 * than its column once normalised (NFKC may lengthen it), or, for end users, holds a link.
 */
export function editedFullName(raw: string, options: { readonly refuseLinks: boolean }): string | null {
  const name = normaliseFullName(raw);
  if (name === '' || name.length > LIMITS.fullName) return null;
  return options.refuseLinks && holdsLink(name) ? null : name;
}

/**
 * An email as stored (normalised), or null when it is not one a new account could use. Re-sending the
 * address the user already has is no change, so it passes even when today's checks would refuse it
 * (the seeded superuser's `admin@…`, say).
 */
export function editedEmail(raw: string, current: string): string | null {
  if (normaliseEmail(raw) === current) return current;
  const checked = checkSignupEmail(raw);
  return checked.ok && checked.email.length <= LIMITS.email ? checked.email : null;
}

/**
 * The audit events: one entry per security-relevant fact, with its stable name, its log level, what it
 * means and its detail fields. Emit sites, the log sink, the webhooks and the docs (docs/events.md,
 * written by `npm run docs`) all read this one table, and `AuditSink.record` accepts only these names,
 * each with exactly its fields. Names are part of the operator's contract: alerts and webhook receivers
 * match on them, so an entry is added, never renamed.
 *
 * Detail fields carry counts, codes, roles, hashes of policies: never a password, token, key or email.
 * Who and from where (user id, IP address, presented email) go in the event's subject and are written
 * only as keyed digests (piiHasher, src/log/logger.ts).
 */

export type FieldType = 'string' | 'number' | 'boolean';

export interface FieldSpec {
  readonly type: FieldType;
  /** Absent from some events of this name. */
  readonly optional?: true;
  readonly about: string;
}

export interface EventSpec {
  /** warn: signs of an attack or a refused change, which operators alert on; info: the normal facts. */
  readonly level: 'info' | 'warn';
  readonly description: string;
  readonly detail: Readonly<Record<string, FieldSpec>>;
}

const action = (about: string): FieldSpec => ({ type: 'string', about });

export const AUDIT_EVENTS = {
  'user.signed-up': {
    level: 'info',
    description: 'A new account was created by user-new (its email is not verified yet).',
    detail: {},
  },
  'email.verified': {
    level: 'info',
    description: 'An account’s email address was marked verified (user-set-emailverified).',
    detail: {},
  },
  'login.succeeded': {
    level: 'info',
    description: 'A password check succeeded.',
    detail: { action: action('user-login, user-passcheck or user-passcheck-nosession.') },
  },
  'login.failed': {
    level: 'warn',
    description:
      'A password check failed: wrong or unknown account, temporarily locked account, or right password on an account that cannot log in.',
    detail: {
      action: action('user-login, user-passcheck or user-passcheck-nosession.'),
      reason: { type: 'string', about: 'wrong_credentials, temporarily_locked or user_inactive.' },
    },
  },
  'account.locked-out': {
    level: 'warn',
    description: 'Too many failed password checks: the account is temporarily locked.',
    detail: {
      failed_login_tries: { type: 'number', about: 'Failed checks counted when the lock began.' },
      locked_for_s: { type: 'number', about: 'How long the lock lasts, in seconds.' },
    },
  },
  'user.locked': {
    level: 'info',
    description: 'A superuser locked an account (user-lock); its sessions ended.',
    detail: {
      changed: { type: 'boolean', about: 'False when the account was already locked.' },
      role: { type: 'string', about: 'The account’s role afterwards.' },
      ended_sessions: { type: 'number', about: 'Sessions the lock ended.' },
    },
  },
  'user.unlocked': {
    level: 'info',
    description: 'A superuser unlocked an account (user-lock with action unlock).',
    detail: {
      changed: { type: 'boolean', about: 'False when the account was not locked.' },
      role: { type: 'string', about: 'The account’s role afterwards.' },
    },
  },
  'password.changed': {
    level: 'info',
    description: 'A user changed their password (user-changepass, user-changepass-nosession).',
    detail: {
      sessions_ended: { type: 'number', about: 'Other sessions ended.' },
      keys_revoked: { type: 'number', about: 'No-session API keys revoked.' },
    },
  },
  'password.reset': {
    level: 'info',
    description: 'A forgotten password was replaced (user-resetpass, user-resetpass-nosession).',
    detail: {
      sessions_ended: { type: 'number', about: 'Sessions ended.' },
      keys_revoked: { type: 'number', about: 'No-session API keys revoked.' },
    },
  },
  'session.created': {
    level: 'info',
    description: 'A session was opened (session-new).',
    detail: {},
  },
  'session.ended': {
    level: 'info',
    description:
      'Sessions were ended on request: user-logout, session-delete, session-delete-userid or session-revoke (one ' +
      'device logged out by its user or a superuser; the subject is the session’s user).',
    detail: {
      action: action('The action that ended them.'),
      sessions: { type: 'number', about: 'Sessions ended.' },
      kept_current: { type: 'boolean', optional: true, about: 'session-delete-userid: the caller’s session was kept.' },
      by_superuser: {
        type: 'boolean',
        optional: true,
        about: 'session-revoke: a superuser ended another user’s session.',
      },
    },
  },
  'apikey.issued': {
    level: 'info',
    description: 'An API key was issued (apikey-new, apikey-new-nosession).',
    detail: { action: action('The issuing action.') },
  },
  'apikey.revoked': {
    level: 'info',
    description: 'API keys were revoked (apikey-revoke, apikey-revoke-nosession, apikey-revokeall-nosession).',
    detail: {
      action: action('The revoking action.'),
      keys: { type: 'number', about: 'Keys revoked.' },
    },
  },
  'apikey.refreshed': {
    level: 'info',
    description: 'A refresh token was exchanged for a new API key and refresh token (apikey-refresh-nosession).',
    detail: {},
  },
  'apikey.refresh-reuse-detected': {
    level: 'warn',
    description:
      'A refresh token already exchanged was presented again after the grace period: a sign of theft; the whole token family was revoked.',
    detail: { revoked_keys: { type: 'number', about: 'API keys of the family revoked.' } },
  },
  'user.edited': {
    level: 'info',
    description: 'An account’s role or active flag was changed by a superuser (user-edit) or internal-user-edit.',
    detail: {
      action: action('user-edit or internal-user-edit.'),
      role: { type: 'string', optional: true, about: 'The new role, when it changed.' },
      previous_role: { type: 'string', optional: true, about: 'The role before (user-edit).' },
      is_active: { type: 'boolean', optional: true, about: 'The new active flag, when it changed.' },
    },
  },
  'email.changed': {
    level: 'info',
    description:
      'An account’s email address was changed (user-edit by its user, who proved the password, or by a superuser; ' +
      'internal-user-edit). The subject’s email is the address before the change.',
    detail: {
      action: action('user-edit or internal-user-edit.'),
      by_superuser: { type: 'boolean', about: 'True when a superuser changed another user’s address.' },
    },
  },
  'user.deleted': {
    level: 'info',
    description: 'An account was deleted (user-delete).',
    detail: { by_superuser: { type: 'boolean', about: 'False when the user deleted their own account.' } },
  },
  'ratelimit.hit': {
    level: 'warn',
    description: 'A request was refused with 429: at most one event per rate bucket and minute.',
    detail: {
      bucket: { type: 'string', about: 'The bucket’s kind (ip, g:user, a:<action>, e:…), without its identity.' },
      action: { type: 'string', optional: true, about: 'The refused action, when the request named one.' },
    },
  },
  'policy.reloaded': {
    level: 'info',
    description: 'SIGHUP: a valid permissions policy was put in force.',
    detail: {
      sha256: { type: 'string', about: 'SHA-256 of the policy now in force.' },
      previous_sha256: { type: 'string', about: 'SHA-256 of the policy it replaced.' },
      changed: { type: 'boolean', about: 'False when the file had not changed.' },
    },
  },
  'policy.reload-refused': {
    level: 'warn',
    description: 'SIGHUP: the permissions file is invalid; the policy in force stays (the problems are in the log).',
    detail: {
      in_force_sha256: { type: 'string', about: 'SHA-256 of the policy that stays in force.' },
      problems: { type: 'number', about: 'How many problems the check found.' },
    },
  },
  'email.sent': {
    level: 'info',
    description: 'A verification or forgot-password mail was handed to the SMTP server.',
    detail: {
      kind: { type: 'string', about: 'signup or forgotpass.' },
      ms: { type: 'number', about: 'Time the SMTP exchange took, in milliseconds.' },
    },
  },
  'email.not-sent': {
    level: 'warn',
    description: 'A verification or forgot-password mail could not be sent.',
    detail: {
      kind: { type: 'string', about: 'signup or forgotpass.' },
      failure: { type: 'string', about: 'The failure code the action answered.' },
      smtp: { type: 'string', about: 'The SMTP error codes (no addresses).' },
    },
  },
  'login.second-factor-required': {
    level: 'info',
    description:
      'A password check succeeded for a user with a second factor: a login ticket was issued for the second step.',
    detail: { action: action('user-login, user-passcheck or user-passcheck-nosession.') },
  },
  'second-factor.failed': {
    level: 'warn',
    description:
      'A second step failed: a wrong code, or a login ticket that is unknown, expired, spent, revoked or for another session.',
    detail: {
      action: action('user-login-secondfactor, user-stepup or user-totp-confirm.'),
      reason: { type: 'string', about: 'second_factor_wrong, login_ticket_invalid or temporarily_locked.' },
      method: { type: 'string', optional: true, about: 'totp, recovery or passkey.' },
    },
  },
  'second-factor.used': {
    level: 'info',
    description: 'A second factor was proved (a login’s second step or a step-up).',
    detail: {
      action: action('user-login-secondfactor or user-stepup.'),
      method: { type: 'string', about: 'totp, recovery or passkey.' },
      recovery_codes_left: { type: 'number', optional: true, about: 'After a recovery code was spent.' },
    },
  },
  'passkey.counter-decreased': {
    level: 'warn',
    description:
      'A passkey presented a signature counter that did not grow: perhaps a cloned authenticator. The assertion was refused.',
    detail: {
      action: action('user-login-passkey, user-login-secondfactor or user-stepup.'),
      factor_id: { type: 'string', about: 'The passkey.' },
      stored: { type: 'number', about: 'The counter stored at its last use.' },
      presented: { type: 'number', about: 'The counter the assertion carried.' },
    },
  },
  'factor.added': {
    level: 'info',
    description: 'A second factor became active (user-totp-confirm, user-passkey-register).',
    detail: {
      kind: { type: 'string', about: 'totp or passkey.' },
      recovery_codes: { type: 'boolean', about: 'True when it was the first factor and recovery codes were issued.' },
    },
  },
  'factor.removed': {
    level: 'warn',
    description: 'A second factor was removed; the user’s keys, refresh tokens, login tickets and other sessions end.',
    detail: {
      kind: { type: 'string', about: 'totp or passkey.' },
      factors_left: { type: 'number', about: 'Active factors the user still has.' },
    },
  },
  'factors.reset': {
    level: 'warn',
    description:
      'A superuser removed every second factor of a user (user-factors-reset, `authsvc user factors reset`); the ' +
      'user’s sessions, keys, refresh tokens and login tickets end.',
    detail: {
      factors: { type: 'number', about: 'Factors removed (pending ones included).' },
      sessions_ended: { type: 'number', about: 'Sessions of the user that ended.' },
    },
  },
  'recovery-codes.replaced': {
    level: 'info',
    description: 'The user’s recovery codes were replaced by new ones (user-recoverycodes-new).',
    detail: {},
  },
} as const satisfies Readonly<Record<string, EventSpec>>;

export type AuditEventName = keyof typeof AUDIT_EVENTS;

export const auditEventNames = Object.keys(AUDIT_EVENTS) as AuditEventName[];

type ValueOf<T extends FieldType> = T extends 'string' ? string : T extends 'number' ? number : boolean;
type Fields<N extends AuditEventName> = (typeof AUDIT_EVENTS)[N]['detail'];
type RequiredKeys<F> = { [K in keyof F]: F[K] extends { optional: true } ? never : K }[keyof F];
type OptionalKeys<F> = { [K in keyof F]: F[K] extends { optional: true } ? K : never }[keyof F];
type TypeOf<S> = S extends { type: infer T extends FieldType } ? ValueOf<T> : never;

/** The detail an event of name N carries: its catalogue fields, typed, the optional ones optional. */
export type AuditDetail<N extends AuditEventName> = {
  readonly [K in RequiredKeys<Fields<N>>]: TypeOf<Fields<N>[K]>;
} & { readonly [K in OptionalKeys<Fields<N>>]?: TypeOf<Fields<N>[K]> };

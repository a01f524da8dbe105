/**
 * The security mails an operator may turn on with `notify` (docs/design.md#security-mail): lockout (locked after
 * failed logins), password (changed or reset), email (changed: to the old address), factor (added or removed),
 * apikey (created), newdevice (a login from a user agent not seen before).
 */
export const NOTIFY_KINDS = ['lockout', 'password', 'email', 'factor', 'apikey', 'newdevice'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

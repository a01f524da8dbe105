/** Request items shared by several action families. */
import { Id, LIMITS, Text } from './schema-kit.js';

/**
 * A password item: up to 4096 characters on the wire so that a too-long password is answered with
 * the policy's explanation; the policy itself refuses more than 1024 (never truncating).
 */
export const Password = (description: string) => Text(LIMITS.passwordWire, { description });

/** The initiator of user-edit and user-lock: a session of that user, holding that role. */
/** What checking the initiator may answer (src/accounts/initiator.ts). */
export const INITIATOR_FAILURES = [
  'session_not_found',
  'session_mismatch',
  'role_mismatch',
  'role_not_in_policy',
  'caller_not_valid',
] as const;

export const Initiator = {
  user_id: Id({ description: 'the initiating user' }),
  user_role: Text(LIMITS.role, { description: "the initiating user's role (must be the stored one)" }),
  session_token: Text(LIMITS.token, { description: "a session of the initiating user (unexpired, of user_id's own)" }),
};

/**
 * Valid request bodies for tests that send every action: one valid request of each (which the bad-input
 * sweep breaks one item at a time and the hostile-input fuzz starts from), and the few bodies load tests
 * send again and again. Which accounts, tokens and keys they name is the test's choice (`RequestCast`).
 */
import type { ActionName } from '../../src/protocol/index.js';

type Body = Record<string, unknown>;

/** An account a request names. */
export interface NamedAccount {
  readonly id: number;
  readonly email: string;
}

/** The lifetimes of a no-session key and its refresh token, in seconds. */
export interface KeyLifetimes {
  readonly expires_seconds: number;
  readonly not_valid_before: number;
  readonly refresh_expires: number;
  readonly refresh_nbf: number;
}

/** What the valid requests name. */
export interface RequestCast {
  /** The session every action that takes one presents. */
  readonly token: string;
  /** The acting account: its sessions, logins, checks, edits, lookups and keys. */
  readonly user: NamedAccount & { readonly role: string };
  /** Changes its password without a session, is reset with one, is edited internally. */
  readonly other: NamedAccount;
  /** Is locked (by the superuser), deleted and reset without a session. */
  readonly victim: NamedAccount;
  /** The address that signs up, is marked verified and is mailed. */
  readonly newcomer: string;
  /** The accounts' password (and the one new accounts and resets set). */
  readonly password: string;
  /** The password the changes set. */
  readonly newPassword: string;
  /** A key dict of the acting account, and the refresh token issued with it. */
  readonly apikey: unknown;
  readonly refreshToken: string;
  readonly lifetimes: KeyLifetimes;
}

/** The items of an API key request that name neither its account nor its lifetime. */
export const KEY_ISSUE = {
  issuer: 'frontend',
  audience: 'api',
  subject: ['/api/a'],
  apiversion: 1,
  not_valid_before: 0,
  ip_address: '192.0.2.1',
} as const;

/** session-new for `userId` (null: an anonymous session), one day long. */
export const sessionNewBody = (userId: number | null): Body => ({
  ip_address: '192.0.2.1',
  user_agent: 'ua',
  user_id: userId,
  expires: 1,
  extra_info_json: {},
});

/** user-check-access: may the user view its own private dataset? */
export const checkAccessBody = (userId: number, role: string): Body => ({
  user_id: userId,
  user_role: role,
  action: 'view',
  target_name: 'dataset',
  target_owner: userId,
  target_visibility: 'private',
  target_sharedwith: '',
});

/** One valid request of every action, naming the cast. */
/** A passkey response of the right shape that answers no challenge of the server's. */
const PASSKEY_RESPONSE = {
  id: 'AAAAAAAAAAAAAAAAAAAAAA',
  rawId: 'AAAAAAAAAAAAAAAAAAAAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
  clientExtensionResults: {},
};

export function validRequests(cast: RequestCast): { [K in ActionName]: Body } {
  const { token, user, other, victim, newcomer, password, newPassword, lifetimes } = cast;
  const keyUse = { apikey_dict: cast.apikey, user_id: user.id, user_role: user.role };
  const mailed = {
    session_token: token,
    server_name: 'Example',
    server_baseurl: 'https://example.org',
    verification_token: 'a-token',
    verification_expiry: 900,
  };
  return {
    'session-new': sessionNewBody(user.id),
    'session-exists': { session_token: token },
    'session-delete': { session_token: token },
    'session-delete-userid': { session_token: token, user_id: user.id, keep_current_session: true },
    'internal-session-edit': { target_session_token: token, update_dict: { a: 2 } },
    'session-list': { user_id: user.id, session_token: token },
    'session-revoke': { user_id: user.id, session_token: token, target_session_id: 'AAAAAAAAAAAAAAAAAAAAAA' },
    'user-events': { user_id: user.id, session_token: token, limit: 10 },
    'user-validatepass': { password: 'a fine long passphrase', email: 'a@example.org', full_name: 'A B' },
    'user-new': { full_name: 'Jane Doe', email: newcomer, password },
    'user-login': { session_token: token, email: user.email, password },
    'user-logout': { session_token: token, user_id: user.id },
    'user-passcheck': { session_token: token, password },
    'user-passcheck-nosession': { email: user.email, password },
    'user-changepass': {
      user_id: user.id,
      session_token: token,
      full_name: 'A B',
      email: user.email,
      current_password: password,
      new_password: newPassword,
    },
    'user-changepass-nosession': {
      user_id: other.id,
      full_name: 'A B',
      email: other.email,
      current_password: password,
      new_password: newPassword,
    },
    'user-resetpass': { email_address: other.email, new_password: password, session_token: token },
    'user-resetpass-nosession': { email_address: victim.email, new_password: password, required_active: true },
    'user-check-access': checkAccessBody(user.id, user.role),
    'user-check-limit': { user_id: user.id, user_role: user.role, limit_name: 'max_requests', value_to_check: 1 },
    'user-list': { user_id: null, after_user_id: 1 },
    'user-lookup-email': { email: user.email },
    'user-lookup-match': { by: 'email', match: user.email, after_user_id: 1 },
    'user-edit': {
      user_id: user.id,
      user_role: user.role,
      session_token: token,
      target_userid: user.id,
      update_dict: { full_name: 'Renamed' },
    },
    'user-lock': { user_id: 1, user_role: 'superuser', session_token: token, target_userid: victim.id, action: 'lock' },
    'user-delete': { email: victim.email, user_id: victim.id, password, session_token: token },
    'internal-user-edit': { target_userid: other.id, update_dict: { extra_info: { a: 1 } } },
    'user-set-emailverified': { email: newcomer },
    'user-set-emailsent': { email: newcomer, email_type: 'signup' },
    'user-sendemail-signup': {
      email_address: newcomer,
      ...mailed,
      created_info: { send_verification: true, user_id: user.id },
      account_verify_url: '/verify',
    },
    'user-sendemail-forgotpass': { email_address: user.email, ...mailed, password_forgot_url: '/forgot' },
    'apikey-new': {
      ...KEY_ISSUE,
      user_id: user.id,
      user_role: user.role,
      expires_days: 1,
      user_agent: 'ua',
      session_token: token,
    },
    'apikey-verify': keyUse,
    'apikey-revoke': keyUse,
    'apikey-new-nosession': { ...KEY_ISSUE, ...lifetimes, user_id: user.id, user_role: user.role },
    'apikey-verify-nosession': keyUse,
    'apikey-revoke-nosession': keyUse,
    'apikey-revokeall-nosession': keyUse,
    'apikey-refresh-nosession': { ...keyUse, ...lifetimes, refresh_token: cast.refreshToken, ip_address: '192.0.2.1' },
    'user-factor-list': { user_id: user.id, session_token: token },
    'user-totp-new': { user_id: user.id, session_token: token, name: 'phone' },
    'user-totp-confirm': {
      user_id: user.id,
      session_token: token,
      factor_id: 'AAAAAAAAAAAAAAAAAAAAAA',
      code: '123456',
    },
    'user-login-secondfactor': {
      session_token: token,
      login_ticket: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      method: 'totp',
      code: '123456',
    },
    'user-stepup': { user_id: user.id, session_token: token, method: 'recovery', code: 'aaaa-bbbb-cccc-dddd' },
    'user-factor-delete': { user_id: user.id, session_token: token, factor_id: 'AAAAAAAAAAAAAAAAAAAAAA' },
    'user-recoverycodes-new': { user_id: user.id, session_token: token },
    'user-factors-reset': { user_id: user.id, user_role: user.role, session_token: token, target_userid: other.id },
    'user-passkey-options': { session_token: token, purpose: 'stepup', user_id: user.id },
    'user-passkey-register': { user_id: user.id, session_token: token, name: 'laptop', response: PASSKEY_RESPONSE },
    'user-login-passkey': { session_token: token, response: PASSKEY_RESPONSE },
  };
}

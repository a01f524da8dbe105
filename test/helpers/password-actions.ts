/**
 * Every action that checks a password, as a request body for a user and a guessed password, with the
 * one message its failures show (docs/design.md#one-credential-check). The in-process tests and the
 * reliability suite run the same guesses; a new password-taking action belongs here.
 */
import type { ActionName } from '../../src/protocol/index.js';

export interface Guessed {
  readonly userId: number;
  readonly email: string;
}

/** Opens a session of the user (or of the anonymous user), returning its token. */
export type OpenSession = (userId: number | null) => Promise<string>;

export interface PasswordAction {
  readonly action: ActionName;
  /** The message every failure of the action shows the end user. */
  readonly message: string;
  readonly body: (user: Guessed, password: string, open: OpenSession) => Promise<Record<string, unknown>>;
}

const DID_NOT_WORK = "Sorry, that user ID and password combination didn't work.";
const CURRENT_DID_NOT_MATCH = 'Your current password did not match the stored password.';
const NEW_PASSWORD = 'quarry-lantern-mossy-77';

export const PASSWORD_ACTIONS: Readonly<Record<string, PasswordAction>> = {
  'user-login': {
    action: 'user-login',
    message: DID_NOT_WORK,
    body: async (user, password, open) => ({ session_token: await open(null), email: user.email, password }),
  },
  'user-passcheck-nosession': {
    action: 'user-passcheck-nosession',
    message: DID_NOT_WORK,
    body: (user, password) => Promise.resolve({ email: user.email, password }),
  },
  'user-passcheck': {
    action: 'user-passcheck',
    message: DID_NOT_WORK,
    body: async (user, password, open) => ({ session_token: await open(user.userId), password }),
  },
  'user-changepass': {
    action: 'user-changepass',
    message: CURRENT_DID_NOT_MATCH,
    body: async (user, password, open) => ({
      user_id: user.userId,
      session_token: await open(user.userId),
      full_name: 'Jane Doe',
      email: user.email,
      current_password: password,
      new_password: NEW_PASSWORD,
    }),
  },
  'user-changepass-nosession': {
    action: 'user-changepass-nosession',
    message: CURRENT_DID_NOT_MATCH,
    body: (user, password) =>
      Promise.resolve({
        user_id: user.userId,
        full_name: 'Jane Doe',
        email: user.email,
        current_password: password,
        new_password: NEW_PASSWORD,
      }),
  },
  'user-delete': {
    action: 'user-delete',
    message: 'We could not verify your email address or password.',
    body: (user, password) => Promise.resolve({ user_id: user.userId, email: user.email, password }),
  },
  'user-edit (own email)': {
    action: 'user-edit',
    message: 'Your password did not match.',
    body: async (user, password, open) => ({
      user_id: user.userId,
      user_role: 'authenticated',
      session_token: await open(user.userId),
      target_userid: user.userId,
      update_dict: { email: `moved-${user.userId}@example.org` },
      password,
    }),
  },
};

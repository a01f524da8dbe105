/**
 * The action registry: every action of the protocol bound to its handler and messages. The mapped
 * type makes a missing or misnamed action a compile error.
 */

import type { ActionName } from '../protocol/index.js';
import type { RegisteredAction } from './define.js';
import { userCheckAccess, userCheckLimit } from './access.js';
import { internalSessionEdit } from './internal.js';
import { userLogin, userLogout, userPasscheck, userPasscheckNosession } from './login.js';
import {
  userChangepass,
  userChangepassNosession,
  userResetpass,
  userResetpassNosession,
  userValidatepass,
} from './password.js';
import { userNew } from './signup.js';
import { sessionDelete, sessionDeleteUserid, sessionExists, sessionNew } from './session.js';

export type Registry = { readonly [K in ActionName]: RegisteredAction<K> };

export const registry: Registry = {
  'session-new': sessionNew,
  'session-exists': sessionExists,
  'session-delete': sessionDelete,
  'session-delete-userid': sessionDeleteUserid,
  'internal-session-edit': internalSessionEdit,
  'user-validatepass': userValidatepass,
  'user-changepass': userChangepass,
  'user-changepass-nosession': userChangepassNosession,
  'user-resetpass': userResetpass,
  'user-resetpass-nosession': userResetpassNosession,
  'user-new': userNew,
  'user-login': userLogin,
  'user-logout': userLogout,
  'user-passcheck': userPasscheck,
  'user-passcheck-nosession': userPasscheckNosession,
  'user-check-access': userCheckAccess,
  'user-check-limit': userCheckLimit,
};

/**
 * The action registry: every action of the protocol bound to its handler and messages. The mapped
 * type makes a missing or misnamed action a compile error.
 */

import type { ActionName } from '../protocol/index.js';
import type { RegisteredAction } from './define.js';
import { userCheckAccess, userCheckLimit } from './access.js';
import {
  apikeyNewNosession,
  apikeyRefreshNosession,
  apikeyRevokeallNosession,
  apikeyRevokeNosession,
  apikeyVerifyNosession,
} from './apikey-nosession.js';
import { apikeyNew, apikeyRevoke, apikeyVerify } from './apikey-session.js';
import { internalSessionEdit, internalUserEdit } from './internal.js';
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
import { userDelete } from './user-delete.js';
import { userEdit } from './user-edit.js';
import { userLock } from './user-lock.js';
import { userList, userLookupEmail, userLookupMatch } from './user-lookup.js';
import { userSetEmailsent, userSetEmailverified } from './verification.js';

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
  'user-list': userList,
  'user-lookup-email': userLookupEmail,
  'user-lookup-match': userLookupMatch,
  'user-edit': userEdit,
  'user-lock': userLock,
  'user-delete': userDelete,
  'internal-user-edit': internalUserEdit,
  'user-set-emailverified': userSetEmailverified,
  'user-set-emailsent': userSetEmailsent,
  'apikey-new': apikeyNew,
  'apikey-verify': apikeyVerify,
  'apikey-revoke': apikeyRevoke,
  'apikey-new-nosession': apikeyNewNosession,
  'apikey-verify-nosession': apikeyVerifyNosession,
  'apikey-revoke-nosession': apikeyRevokeNosession,
  'apikey-revokeall-nosession': apikeyRevokeallNosession,
  'apikey-refresh-nosession': apikeyRefreshNosession,
};

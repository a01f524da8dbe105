/**
 * The action registry: every action of the protocol bound to its handler and messages. The mapped
 * type makes a missing or misnamed action a compile error.
 */

import type { ActionName } from '../protocol/index.js';
import type { RegisteredAction } from './define.js';
import { userCheckAccess, userCheckLimit } from './access.js';
import { internalSessionEdit } from './internal.js';
import { userValidatepass } from './password.js';
import { sessionDelete, sessionDeleteUserid, sessionExists, sessionNew } from './session.js';

export type Registry = { readonly [K in ActionName]: RegisteredAction<K> };

export const registry: Registry = {
  'session-new': sessionNew,
  'session-exists': sessionExists,
  'session-delete': sessionDelete,
  'session-delete-userid': sessionDeleteUserid,
  'internal-session-edit': internalSessionEdit,
  'user-validatepass': userValidatepass,
  'user-check-access': userCheckAccess,
  'user-check-limit': userCheckLimit,
};

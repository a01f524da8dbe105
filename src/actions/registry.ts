/**
 * The action registry: every declaration of the protocol bound to its handler and messages, as the
 * spread of the handler families (each file here pairs with the family file of the same name in
 * src/protocol/actions/). A family's map is checked against its declarations (none missing, none
 * unknown) and the registry against every action name, so a missing or misnamed action is a compile
 * error.
 */
import type { ActionName } from '../protocol/index.js';
import type { RegisteredAction } from './define.js';
import { accessHandlers } from './access.js';
import { apikeyNosessionHandlers } from './apikey-nosession.js';
import { factorHandlers } from './factors.js';
import { apikeySessionHandlers } from './apikey-session.js';
import { emailHandlers } from './email.js';
import { loginHandlers } from './login.js';
import { lookupHandlers } from './lookup.js';
import { passkeyHandlers } from './passkeys.js';
import { passwordHandlers } from './password.js';
import { sessionHandlers } from './session.js';
import { deviceHandlers } from './devices.js';
import { userEventHandlers } from './user-events.js';
import { signupHandlers } from './signup.js';
import { userDeleteHandlers } from './user-delete.js';
import { userEditHandlers } from './user-edit.js';
import { userLockHandlers } from './user-lock.js';
import { verificationHandlers } from './verification.js';

export type Registry = { readonly [K in ActionName]: RegisteredAction<K> };

export const registry: Registry = {
  ...sessionHandlers,
  ...deviceHandlers,
  ...userEventHandlers,
  ...passwordHandlers,
  ...signupHandlers,
  ...loginHandlers,
  ...accessHandlers,
  ...lookupHandlers,
  ...userEditHandlers,
  ...userLockHandlers,
  ...userDeleteHandlers,
  ...verificationHandlers,
  ...emailHandlers,
  ...apikeySessionHandlers,
  ...apikeyNosessionHandlers,
  ...factorHandlers,
  ...passkeyHandlers,
};

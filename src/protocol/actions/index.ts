import type { Static } from '@sinclair/typebox';
import { loginActions } from './login.js';
import { passwordActions } from './password.js';
import { signupActions } from './signup.js';
import { accessActions } from './access.js';
import { sessionActions } from './session.js';
import { userActions } from './user.js';
import { apikeySessionActions } from './apikey-session.js';
import { apikeyNosessionActions } from './apikey-nosession.js';

/** Every action of the wire protocol, by name. */
export const actionSpecs = {
  ...sessionActions,
  ...passwordActions,
  ...signupActions,
  ...loginActions,
  ...accessActions,
  ...userActions,
  ...apikeySessionActions,
  ...apikeyNosessionActions,
} as const;

export type ActionName = keyof typeof actionSpecs;
export type ActionInput<K extends ActionName> = Static<(typeof actionSpecs)[K]['input']>;
export type ActionOutput<K extends ActionName> = Static<(typeof actionSpecs)[K]['output']>;

export const actionNames = Object.keys(actionSpecs) as ActionName[];

export function isActionName(name: string): name is ActionName {
  return Object.prototype.hasOwnProperty.call(actionSpecs, name);
}

import type { Static, TObject } from '@sinclair/typebox';
import type { CommonFailure } from '../failure-codes.js';
import { accessActions } from './access.js';
import { loginActions } from './login.js';
import { lookupActions } from './lookup.js';
import { passwordActions } from './password.js';
import { sessionActions } from './session.js';
import { deviceActions } from './devices.js';
import { userEventActions } from './user-events.js';
import { signupActions } from './signup.js';
import { userDeleteActions } from './user-delete.js';
import { userEditActions } from './user-edit.js';
import { userLockActions } from './user-lock.js';
import { verificationActions } from './verification.js';
import { emailActions } from './email.js';
import { apikeySessionActions } from './apikey-session.js';
import { apikeyNosessionActions } from './apikey-nosession.js';
import { factorActions } from './factors.js';
import { passkeyActions } from './passkeys.js';

/**
 * Every action of the wire protocol, by name: the spread of the families. Each family file here has
 * the handler file of the same name in src/actions/.
 */
export const actionSpecs = {
  ...sessionActions,
  ...deviceActions,
  ...userEventActions,
  ...passwordActions,
  ...signupActions,
  ...loginActions,
  ...accessActions,
  ...lookupActions,
  ...userEditActions,
  ...userLockActions,
  ...userDeleteActions,
  ...verificationActions,
  ...emailActions,
  ...apikeySessionActions,
  ...apikeyNosessionActions,
  ...factorActions,
  ...passkeyActions,
} as const;

export type ActionName = keyof typeof actionSpecs;
export type ActionInput<K extends ActionName> = Static<(typeof actionSpecs)[K]['input']>;
export type ActionOutput<K extends ActionName> = Static<(typeof actionSpecs)[K]['output']>;
/** The items of an output schema declared with NullOnFailure: never null on success. */
type NullOnFailureKeys<O extends TObject> = {
  [P in keyof O['properties']]: O['properties'][P] extends { readonly 'x-null-on-failure': true } ? P : never;
}[keyof O['properties']];

/** The items of `response` when the action succeeded: what the declaration says is filled, is non-null. */
export type ActionSuccess<K extends ActionName> = {
  [P in keyof ActionOutput<K>]: P extends NullOnFailureKeys<(typeof actionSpecs)[K]['output']>
    ? NonNullable<ActionOutput<K>[P]>
    : ActionOutput<K>[P];
};
/** The failure codes an action may answer with: its declared ones and the common ones. */
export type ActionFailure<K extends ActionName> = (typeof actionSpecs)[K]['failures'][number] | CommonFailure;

export const actionNames = Object.keys(actionSpecs) as ActionName[];

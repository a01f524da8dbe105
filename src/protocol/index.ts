/**
 * The wire protocol, shared by the server and the client. It depends on nothing but node: built-ins
 * and TypeBox (schemas are data), so a frontend importing the client never loads the server.
 */
export * from './fernet.js';
export * from './envelope.js';
export * from './messages.js';
export * from './schema-kit.js';
export * from './datetime.js';
export * from './failure-codes.js';
export * from './rate-class.js';
export { normaliseEmail } from './addresses.js';
export type { ActionSpec } from './action-spec.js';
export { actionSpecs, actionNames } from './actions/index.js';
export type { ActionName, ActionInput, ActionOutput, ActionSuccess, ActionFailure } from './actions/index.js';
export { MATCH_FIELDS, MAX_PAGE_BYTES, USER_PAGE_SIZE } from './actions/lookup.js';
export type { MatchField } from './actions/lookup.js';
export { INITIATOR_FAILURES } from './items.js';
export { UserInfo } from './user-info.js';
export type { UserInfoDict } from './user-info.js';

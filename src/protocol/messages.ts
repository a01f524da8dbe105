import type { ActionFailure, ActionName, ActionOutput, ActionSuccess } from './actions/index.js';
import type { FailureCode, FailureReason } from './failure-codes.js';

export type RequestId = string | number;

/** The decrypted request: what a frontend sends. */
export interface RequestEnvelope<K extends string = string> {
  readonly request: K;
  readonly body: Readonly<Record<string, unknown>>;
  readonly reqid: RequestId;
  /** The end user's IP address (used for rate limits). */
  readonly client_ipaddr: string;
}

/** One problem of a request that failed validation. */
export interface Problem {
  readonly param: string;
  readonly problem: 'missing' | 'incorrect type' | 'invalid value';
  readonly required_type: string | readonly string[];
}

/** The items of `response` on failure: the action's items plus the reason (and problems, for validation). */
export interface FailureItems<C extends FailureCode = FailureCode> {
  readonly failure_reason: FailureReason<C>;
  readonly problems?: readonly Problem[];
  /** Spaces that give every failure of a padded action (the password checks) one reply length. */
  readonly pad?: string;
}

/** A reply with `success: true`: the items the declaration fills on success are typed non-null. */
export interface SuccessReply<K extends ActionName = ActionName> {
  readonly success: true;
  readonly response: ActionSuccess<K>;
  readonly messages: readonly string[];
  readonly reqid: RequestId;
}

/**
 * A reply with `success: false`. `failure_reason` is the text of one of the action's failure codes
 * (`failureCodeOf` gives the code back); the action's items may be missing or null.
 */
export interface FailureReply<K extends ActionName = ActionName> {
  readonly success: false;
  readonly response: Partial<ActionOutput<K>> & FailureItems<ActionFailure<K>>;
  readonly messages: readonly string[];
  readonly reqid: RequestId;
  readonly failure_reason: FailureReason<ActionFailure<K>>;
}

/** The decrypted response. `failure_reason` is present (here and in `response`) exactly when `success` is false. */
export type ResponseEnvelope<K extends ActionName = ActionName> = SuccessReply<K> | FailureReply<K>;

/** Bounds of the envelope itself. */
export const REQID_MAX_LENGTH = 256;

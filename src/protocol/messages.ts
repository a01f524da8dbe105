import type { ActionName, ActionOutput } from './actions/index.js';

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
export interface FailureItems {
  readonly failure_reason: string;
  readonly problems?: readonly Problem[];
}

/** The decrypted response. `failure_reason` is present (here and in `response`) exactly when `success` is false. */
export type ResponseEnvelope<K extends ActionName = ActionName> =
  | {
      readonly success: true;
      readonly response: ActionOutput<K>;
      readonly messages: readonly string[];
      readonly reqid: RequestId;
    }
  | {
      readonly success: false;
      readonly response: Partial<ActionOutput<K>> & FailureItems;
      readonly messages: readonly string[];
      readonly reqid: RequestId;
      readonly failure_reason: string;
    };

/** Bounds of the envelope itself. */
export const REQID_MAX_LENGTH = 256;

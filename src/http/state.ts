/**
 * What the steps of the pipeline hand each other on `ctx.state` (one object per request, made by Koa).
 * Each step reads what an earlier step wrote and adds its own part; the order is fixed in routes.ts.
 */
import type { Middleware, ParameterizedContext } from 'koa';
import type { Reply } from '../actions/dispatch.js';
import type { LogFields } from '../log/logger.js';
import type { RequestId } from '../protocol/index.js';
import type { CheckedRequest } from '../protocol/index.js';

export interface PipelineState {
  /** Fields the request log adds to its line (what was refused, or the action and its outcome). */
  log?: LogFields;
  /** Known once the envelope is checked: the error log of a 500 carries it. */
  reqid?: RequestId;
  /** The raw body, read within the size limit (size guard). */
  text?: string;
  /** When the body was opened: freshness and the replay entry's expiry count from the same instant. */
  receivedAtMs?: number;
  /** The decrypted token: its parsed JSON, its timestamp (seconds) and its MAC (the replay key). */
  opened?: { readonly value: unknown; readonly timestamp: number; readonly mac: Buffer };
  /** The well-formed envelope of POST / (envelope step). */
  request?: CheckedRequest;
  /**
   * Set instead of `request` when the envelope is malformed: the admit step still counts it against
   * the per-IP bucket (when it names a valid IP), then answers 400.
   */
  malformed?: { readonly clientIp?: string };
  /** The answer to seal (dispatch, echo). */
  reply?: Reply;
}

export type PipelineContext = ParameterizedContext<PipelineState>;
export type Step = Middleware<PipelineState>;

/**
 * A step's input, written by an earlier step. Missing means the routes are mis-assembled: a bug,
 * answered 500 by the request log.
 */
export function earlier<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`pipeline: ${what} was not set by an earlier step`);
  return value;
}

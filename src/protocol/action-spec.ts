import type { TObject } from '@sinclair/typebox';
import type { FailureCode } from './failure-codes.js';
import type { RateClass } from './rate-class.js';

/** What the wire contract says of one action; the server binds its handler and end-user messages. */
export interface ActionSpec {
  /** One sentence for the generated docs. */
  readonly summary: string;
  /** State-changing actions are refused when replayed (docs/design.md#freshness-and-replay). */
  readonly changesState: boolean;
  /** Which rate-limit buckets the action counts against, and which body items key them. */
  readonly rate: RateClass;
  /** The failures the action may answer with, besides the common ones (COMMON_FAILURES). */
  readonly failures: readonly FailureCode[];
  /** The action's items. Extra items are ignored, never refused (no `additionalProperties: false`). */
  readonly input: TObject;
  /**
   * Failure replies carry a `pad` item of spaces in `response` that brings every failure of the action to
   * one plaintext length, so the size of an encrypted reply does not tell which failure it was (password
   * checks: whether the account exists).
   */
  readonly padFailures?: true;
  /** The action's items in `response` (on failure they may be null). */
  readonly output: TObject;
}

import type { TObject } from '@sinclair/typebox';

/** What the wire contract says of one action; the server adds its handler and messages. */
export interface ActionSpec {
  /** One sentence for the generated docs. */
  readonly summary: string;
  /** State-changing actions are refused when replayed (DESIGN decision 2). */
  readonly changesState: boolean;
  readonly input: TObject;
  /** The action's items in `response` (on failure they may be null). */
  readonly output: TObject;
}

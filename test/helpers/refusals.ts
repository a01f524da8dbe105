/**
 * Refusals in action tests: a refused request answers success false with its failure reason and a
 * safe message, and changes nothing in the database (the digest before and after is the same).
 */
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

export type Reply = Awaited<ReturnType<TestServer['call']>>;

/** The reply's failure_reason, or false when it succeeded. */
export const reason = (reply: Reply): string | false => !reply.success && reply.failure_reason;

/**
 * What a password check writes whatever its outcome (docs/design.md#one-credential-check): a failure
 * is counted, a success ends the run. A refusal after a password check changes nothing else.
 */
export const CREDENTIAL_CHECK_COLUMNS = ['failed_login_tries', 'last_login_try', 'last_login_success', 'locked_until'];

export interface RefusalShape {
  /** Columns the refusal may write (CREDENTIAL_CHECK_COLUMNS after a password check); none by default. */
  readonly writes?: readonly string[];
  /** The end-user messages of every refusal unless a call names its own; unchecked when absent. */
  readonly messages?: readonly string[];
  /** Further checks of the refusal's `response` (e.g. that the action's items are null). */
  readonly items?: (response: Readonly<Record<string, unknown>>) => void;
}

export type Refused = (
  reply: Promise<Reply> | (() => Promise<Reply>),
  failure: string,
  messages?: string | readonly string[],
) => Promise<void>;

/**
 * `refused(reply, failure, messages?)` for one test file's server (read when called, as servers start
 * in `before`): the digest is taken before the reply is awaited, so the request runs in between; given
 * a function, the request is sent only once the digest is taken.
 */
export function refusals(server: () => TestServer, shape: RefusalShape = {}): Refused {
  return async (reply, failure, messages) => {
    const digest = await server().digest(shape.writes);
    const answer = await (typeof reply === 'function' ? reply() : reply);
    assert.equal(answer.success, false, JSON.stringify(answer));
    assert.equal(reason(answer), failure, JSON.stringify(answer));
    const expected = typeof messages === 'string' ? [messages] : (messages ?? shape.messages);
    if (expected !== undefined) assert.deepEqual(answer.messages, expected);
    shape.items?.({ ...answer.response });
    assert.equal(await server().digest(shape.writes), digest, 'nothing changed');
  };
}

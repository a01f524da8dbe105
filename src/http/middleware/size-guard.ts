/**
 * Reads the body within `maxbodysize` into `state.text`: 413 when it is larger (declared or streamed),
 * 400 when it never arrives. Either way the connection closes, since the rest of the body may still
 * be on its way.
 */
import { readBody } from '../body.js';
import { plain } from '../plain.js';
import type { Step } from '../state.js';

const TOO_LARGE = { refused: 'body too large' } as const;
const NOT_RECEIVED = { refused: 'body not received' } as const;

export function sizeGuard(maxBodySize: number): Step {
  return async function sizeGuard(ctx, next) {
    const read = await readBody(ctx.req, maxBodySize);
    if (!read.ok) {
      ctx.state.log = read.tooLarge ? TOO_LARGE : NOT_RECEIVED;
      ctx.set('Connection', 'close');
      plain(ctx, read.tooLarge ? 413 : 400);
      return;
    }
    ctx.state.text = read.text;
    await next();
  };
}

/**
 * POST /echo (docs/design.md#health-and-echo), mounted only with debugmode 1 and answered only to the loopback
 * address. The standard envelope with `request: "echo"` gets `{success: true, response: {echo: <the
 * decrypted request>}, messages: [], reqid}`, so a frontend developer can check keys and encoding
 * without touching data.
 */
import { isRequestId } from '../protocol/index.js';
import { plain } from './plain.js';
import { earlier } from './state.js';
import type { Step } from './state.js';

/**
 * Deeper values are refused: re-serialising them could overflow the stack (docs/design.md#input-bounded-by-its-schema).
 */
const MAX_ECHO_DEPTH = 64;

function depthWithin(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return false;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return true;
}

export function echo(): Step {
  return function echo(ctx, next) {
    const payload = earlier(ctx.state.opened, 'the opened token').value;
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return plain(ctx, 400);
    const { request, reqid } = payload as Record<string, unknown>;
    if (request !== 'echo' || !isRequestId(reqid) || !depthWithin(payload, MAX_ECHO_DEPTH)) return plain(ctx, 400);
    ctx.state.log = { action: 'echo', reqid };
    ctx.state.reply = {
      code: null,
      payload: { success: true, response: { echo: payload }, messages: [], reqid },
    };
    return next();
  };
}

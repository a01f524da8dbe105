/**
 * POST /echo (DESIGN decision 7): only with debugmode 1 and only from the loopback address (elsewhere
 * the path does not exist). The standard envelope with `request: "echo"` is answered with
 * `{success: true, response: {echo: <the decrypted request>}, messages: [], reqid}`, so a frontend
 * developer can check keys and encoding without touching data.
 */
import type { Context } from 'koa';
import { isSafeText } from '../domain/json-dict.js';
import { REQID_MAX_LENGTH, sealJson } from '../protocol/index.js';
import { readBody } from './body.js';
import type { HttpDeps } from './deps.js';
import { openRequest, refusalStatus } from './open-request.js';
import { plain } from './plain.js';

/** Deeper values are refused: re-serialising them could overflow the stack (trap H2). */
const MAX_ECHO_DEPTH = 64;

export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

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

export async function handleEcho(ctx: Context, deps: HttpDeps): Promise<void> {
  const read = await readBody(ctx.req, deps.maxBodySize);
  if (!read.ok) return plain(ctx, read.tooLarge ? 413 : 400);
  const opened = openRequest(deps, read.text, deps.clock.now());
  if (!opened.ok) return plain(ctx, refusalStatus(opened.reason));
  const payload = opened.value;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return plain(ctx, 400);
  const { request, reqid } = payload as Record<string, unknown>;
  const reqidOk =
    (typeof reqid === 'number' && Number.isSafeInteger(reqid)) ||
    (typeof reqid === 'string' && reqid.length <= REQID_MAX_LENGTH && isSafeText(reqid));
  if (request !== 'echo' || !reqidOk || !depthWithin(payload, MAX_ECHO_DEPTH)) return plain(ctx, 400);
  ctx.state['log'] = { action: 'echo', reqid };
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = sealJson(
    deps.keyring,
    { success: true, response: { echo: payload }, messages: [], reqid },
    { nowMs: deps.clock.now(), iv: deps.random.bytes(16) },
  );
}

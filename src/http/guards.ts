/**
 * The two guards, what is refused before a body is opened: the Host allow-list, in front of every path,
 * and the size guard, which reads the body of a sealed request within `maxbodysize`.
 */
import type { IncomingMessage } from 'node:http';
import { normaliseHost } from '../protocol/addresses.js';
import { plain } from './plain.js';
import type { Step } from './state.js';

const REFUSED = { refused: 'host not allowed' } as const;

/**
 * The Host allow-list (DNS rebinding), before anything else and on every path: a foreign Host gets 401
 * even for /health and for paths that do not exist. `app.proxy` is off, so this is the Host header
 * itself, never X-Forwarded-Host.
 */
export function hostGuard(allowedHosts: ReadonlySet<string>): Step {
  // A frontend sends the same Host on every request: the answer for the last value seen is kept, so the
  // common case is one string comparison (normalising runs node's IPv6 check, a regex, each time).
  let lastHost: string | undefined;
  let lastAllowed = false;
  return function hostGuard(ctx, next) {
    const host = ctx.get('host');
    if (host !== lastHost) {
      lastAllowed = allowedHosts.has(normaliseHost(host));
      lastHost = host;
    }
    if (lastAllowed) return next();
    ctx.state.log = REFUSED;
    plain(ctx, 401);
  };
}

const TOO_LARGE = { refused: 'body too large' } as const;
const NOT_RECEIVED = { refused: 'body not received' } as const;

/**
 * Reads the body within `maxbodysize` into `state.text`: 413 when it is larger (declared or streamed),
 * 400 when it never arrives. Either way the connection closes, since the rest of the body may still
 * be on its way.
 */
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

export type BodyRead = { ok: true; text: string } | { ok: false; tooLarge: boolean };

/**
 * Reads the raw request body with a byte limit. Koa parses no body, and a body parser would branch
 * on Content-Type, which we ignore (the reference's clients send several).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length'] ?? 0);
  // Refuse a declared oversize body before reading a byte of it.
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false, tooLarge: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (result: BodyRead): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limit) {
        finish({ ok: false, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    // latin1 maps every byte to one character: a non-ASCII byte then simply fails the base64 check.
    const onEnd = (): void => finish({ ok: true, text: Buffer.concat(chunks, total).toString('latin1') });
    const onError = (): void => finish({ ok: false, tooLarge: false });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}

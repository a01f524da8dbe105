/**
 * Reads the raw request body with a byte limit. Koa parses no body, and a body parser would branch
 * on Content-Type, which we ignore (the reference's clients send several).
 */
import type { IncomingMessage } from 'node:http';

export type BodyRead = { ok: true; text: string } | { ok: false; tooLarge: boolean };

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

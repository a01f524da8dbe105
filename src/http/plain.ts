/** The one-line plain-text bodies of every non-200 answer that is not an encrypted envelope. */
import type { Context } from 'koa';

const TEXTS: Readonly<Record<number, string>> = {
  400: 'HTTP 400: Could not service this request because of invalid request parameters.',
  401: 'HTTP 401: Could not service this request because of invalid request authentication token or violation of host restriction.',
  404: 'HTTP 404: Not found.',
  405: 'HTTP 405: Method not allowed.',
  413: 'HTTP 413: Could not service this request because the request body is too large.',
  429: 'HTTP 429: Could not service this request because the set rate limit has been exceeded.',
  500: 'HTTP 500: Internal error.',
  503: 'HTTP 503: Could not service this request right now; try again later.',
};

/** Every status answered with one of these lines (docs/protocol.md's status table lists them, test/docs checks). */
export const PLAIN_STATUSES: readonly number[] = Object.keys(TEXTS).map(Number);

/** Set as the header itself: Koa's `ctx.type` would look the value up in its MIME table each time. */
export const TEXT_PLAIN = 'text/plain; charset=utf-8';

/** The body, with its final newline. */
export function plainText(status: number): string {
  return `${TEXTS[status] ?? `HTTP ${status}: Could not service this request.`}\n`;
}

export function plain(ctx: Context, status: number): void {
  ctx.status = status;
  ctx.set('Content-Type', TEXT_PLAIN);
  ctx.body = plainText(status);
}

/**
 * @authsvc/client/koa: the frontend kit as one Koa middleware. It reads the session cookie, reads a POSTed form (small,
 * urlencoded), refuses a POST whose CSRF token is not the session's, and gives the routes what they need in
 * `ctx.state.kit`. It imports nothing from Koa: `KoaContext` is the part of Koa's context it uses, which Koa's own
 * context fits, so the client installs without Koa and this file runs with any Koa version.
 */
import { csrfToken, csrfValid } from './csrf.js';
import { sessionCookie, sessionTokenFrom } from './session-cookie.js';

/** What a route finds in `ctx.state.kit`. */
export interface FrontendKit {
  /** The session token the browser presented (not yet checked with authsvc), or the one `setSession` gave. */
  readonly sessionToken: string | undefined;
  /** The form a POST carried (urlencoded); empty for other requests. */
  readonly form: Readonly<Record<string, string>>;
  /** Gives the browser this session (e.g. a new one at login), or removes it (`null`). */
  setSession(token: string | null): void;
  /** The CSRF token of the current session, for every form (`<input type="hidden" name="_csrf">`); '' without one. */
  csrf(): string;
}

/** The part of Koa's context the middleware uses. */
export interface KoaContext {
  readonly method: string;
  readonly req: AsyncIterable<Uint8Array>;
  get(field: string): string;
  append(field: string, value: string): void;
  status: number;
  body: unknown;
  state: { kit?: FrontendKit };
}

export interface FrontendKitOptions {
  /** The frontend's own secret (32 bytes or more), never sent to authsvc. */
  readonly key: Uint8Array;
  /** Served over HTTPS: the cookie is `__Host-session` and Secure (see sessionCookie). */
  readonly secure: boolean;
  /** A larger form is refused (413) before it is read whole; default 16 KiB. */
  readonly maxFormBytes?: number;
  /** Answers a POST without the session's CSRF token; default a plain 403. */
  readonly refused?: (ctx: KoaContext) => void | Promise<void>;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const isForm = (ctx: KoaContext): boolean =>
  /^application\/x-www-form-urlencoded\s*(;|$)/i.test(ctx.get('content-type'));

/** The form's items, or null when it is larger than `limit` bytes. */
async function readForm(ctx: KoaContext, limit: number): Promise<Record<string, string> | null> {
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const chunk of ctx.req) {
    size += chunk.byteLength;
    if (size > limit) return null;
    text += decoder.decode(chunk, { stream: true });
  }
  return Object.fromEntries(new URLSearchParams(text + decoder.decode()));
}

export function frontendKit(
  options: FrontendKitOptions,
): (ctx: KoaContext, next: () => Promise<unknown>) => Promise<void> {
  const { key, secure } = options;
  const cookie = { secure };
  const limit = options.maxFormBytes ?? 16 * 1024;
  return async (ctx, next) => {
    let token = sessionTokenFrom(ctx.get('cookie'), cookie);
    let form: Record<string, string> = {};
    if (UNSAFE.has(ctx.method)) {
      // A form carries the CSRF token as its `_csrf` item; a script's request (any body, left unread), in a header.
      if (isForm(ctx)) {
        const read = await readForm(ctx, limit);
        if (read === null) {
          ctx.status = 413;
          ctx.body = 'This form is too large.';
          return;
        }
        form = read;
      }
      const presented = form['_csrf'] ?? (ctx.get('x-csrf-token') || undefined);
      if (token === undefined || !csrfValid(key, token, presented)) {
        if (options.refused !== undefined) await options.refused(ctx);
        else {
          ctx.status = 403;
          ctx.body = 'This form has expired. Please go back, reload and try again.';
        }
        return;
      }
    }
    ctx.state.kit = {
      get sessionToken() {
        return token;
      },
      form,
      setSession(next: string | null) {
        ctx.append('Set-Cookie', sessionCookie(next, cookie));
        token = next ?? undefined;
      },
      csrf: () => (token === undefined ? '' : csrfToken(key, token)),
    };
    await next();
  };
}

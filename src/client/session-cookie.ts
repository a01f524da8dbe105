/**
 * The session cookie: the only thing a browser holds of its authsvc session. HttpOnly (scripts never read it),
 * SameSite=Lax (other sites' forms do not carry it; the CSRF token is the main defence, this a second one), and over
 * HTTPS named `__Host-session` and Secure: the prefix makes the browser insist on Secure, Path=/ and no Domain, so a
 * sibling subdomain cannot plant a session cookie.
 */

export interface SessionCookieOptions {
  /** Served over HTTPS (as every deployed frontend must be): `__Host-session`, Secure. Else `session`, for development. */
  readonly secure: boolean;
}

export function sessionCookieName(options: SessionCookieOptions): string {
  return options.secure ? '__Host-session' : 'session';
}

/** Session tokens are base64url text; anything else would break the header. */
const COOKIE_VALUE = /^[A-Za-z0-9_\-.~+/=]*$/;

/**
 * The `Set-Cookie` header value that gives the browser `token`, or, with `null`, removes its session cookie. No
 * Max-Age: the cookie lasts as long as the browser's session, and authsvc decides how long the session does.
 */
export function sessionCookie(token: string | null, options: SessionCookieOptions): string {
  if (token !== null && (token === '' || !COOKIE_VALUE.test(token)))
    throw new TypeError('authsvc client: a session token is base64url text');
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(options.secure ? ['Secure'] : [])];
  if (token === null) attributes.push('Max-Age=0');
  return [`${sessionCookieName(options)}=${token ?? ''}`, ...attributes].join('; ');
}

/** The session token in a request's `Cookie` header, if it holds one. */
export function sessionTokenFrom(cookieHeader: string | undefined, options: SessionCookieOptions): string | undefined {
  const name = sessionCookieName(options);
  for (const pair of (cookieHeader ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== name) continue;
    const value = pair.slice(at + 1).trim();
    return value !== '' && COOKIE_VALUE.test(value) ? value : undefined;
  }
  return undefined;
}

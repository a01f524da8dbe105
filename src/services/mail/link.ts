/**
 * The link in a mail: the frontend's base URL joined with the action's URL fragment. Joined as
 * paths (exactly one slash between them), and refused unless the result stays on the base URL's
 * origin under its path: a fragment cannot point the link elsewhere (`//evil`, `https://…`,
 * `..`, backslashes) or smuggle whitespace or control characters into the mail.
 */

import { hasControlCharacters } from './headers.js';

const unsafe = (value: string): boolean => hasControlCharacters(value) || /[\s\\]/u.test(value);

export interface MailLink {
  /** The base URL as shown in the mail: no trailing slash. */
  readonly base: string;
  readonly href: string;
}

export function buildLink(baseUrl: string, fragment: string): MailLink | null {
  if (unsafe(baseUrl) || unsafe(fragment)) return null;
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return null;
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') return null;
  if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '') return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(fragment) || fragment.split(/[?#]/, 1)[0]?.split('/').includes('..')) return null;

  const basePath = base.pathname.replace(/\/+$/, '');
  const shown = `${base.origin}${basePath}`;
  const rest = fragment.replace(/^\/+/, '');
  let joined: URL;
  try {
    joined = new URL(rest === '' ? shown : `${shown}/${rest}`);
  } catch {
    return null;
  }
  if (joined.origin !== base.origin || !joined.pathname.startsWith(basePath)) return null;
  return { base: shown, href: joined.href };
}

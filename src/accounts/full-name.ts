/**
 * Full names (docs/design.md#emails-and-names-are-normalised, issue 6): normalised (NFKC, runs of blanks and control
 * characters squeezed to one space, trimmed) and stored as they are, not HTML-escaped (escaping is the job of
 * whoever renders them). A name that holds a link is refused: sign-up forms are a favourite place for
 * spam. Unlike the reference (which matched any public suffix as a substring, so "j.smith" matched
 * ".sm"), only a host name whose suffix is a real ICANN public suffix counts.
 */
import { parse } from 'tldts';

// Control characters and every kind of blank: a name is one line of words.
// eslint-disable-next-line no-control-regex
const BLANKS = /[\u0000-\u0020\u007f\u0085\u00a0\u2000-\u200b\u2028\u2029\u3000]+/g;

export function normaliseFullName(name: string): string {
  return name.normalize('NFKC').replace(BLANKS, ' ').trim();
}

const HOST_LIKE = /[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

export function holdsLink(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower.includes('://') || lower.includes('www.')) return true;
  for (const token of lower.match(HOST_LIKE) ?? []) {
    const host = parse(token);
    if (host.isIcann === true && host.domain !== null && !host.isIp) return true;
  }
  return false;
}

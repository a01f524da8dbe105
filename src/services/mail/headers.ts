/**
 * Header injection: anything that reaches a header (the subject's server name, the recipient, the
 * sender) is refused when it holds a line break or another control character, before any
 * connection is made. Addresses must also look like one (the HTML5 address rule, as the reference).
 */

// The WHATWG (HTML5) valid-email-address rule.
const ADDRESS =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

// `Display Name <address>`; the name may not hold angle brackets.
const NAMED = /^\s*"?([^"<>]*?)"?\s*<([^<>]+)>\s*$/;

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
export function hasControlCharacters(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/** A header value safe to hand to the composer: no control characters, not empty. */
export function isSafeHeaderText(value: string): boolean {
  return value.trim() !== '' && !hasControlCharacters(value);
}

export function isSafeAddress(value: string): boolean {
  return !hasControlCharacters(value) && ADDRESS.test(value);
}

export interface Mailbox {
  readonly name: string;
  readonly address: string;
}

/** The sender item, `Name <address>` or a bare address; null when it is not safe. */
export function parseMailbox(value: string): Mailbox | null {
  if (hasControlCharacters(value)) return null;
  const named = NAMED.exec(value);
  const name = named?.[1]?.trim() ?? '';
  const address = (named?.[2] ?? value).trim();
  return isSafeAddress(address) ? { name, address } : null;
}

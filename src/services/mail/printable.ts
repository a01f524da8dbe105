/**
 * Text that a visitor or the frontend chose, made fit to print in an official mail (docs/design.md#mail):
 * a user agent of 1,024 characters with line breaks must not become a paragraph of the
 * attacker's own. One line, no control or format characters, at most PRINTABLE_LIMIT code points.
 * The brand makes printable() the only way to a Printable, so a template cannot print raw input.
 */

declare const printableBrand: unique symbol;
export type Printable = string & { readonly [printableBrand]: true };

/** Code points, the ellipsis included. */
export const PRINTABLE_LIMIT = 200;

// Format characters (bidi overrides and isolates, zero-width characters, the BOM, soft hyphen) and
// lone surrogates are invisible, so they go; they could otherwise reorder or hide what is shown.
const INVISIBLE = /[\p{Cf}\p{Cs}]/gu;
// C0 and C1 controls (CR, LF, TAB, NEL, ESC…) and the line and paragraph separators break or
// disturb lines: each becomes a space, so words on either side stay apart.
const BREAKING = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
const SPACES = /\s+/gu;

export function printable(value: string): Printable {
  const line = value.replace(INVISIBLE, '').replace(BREAKING, ' ').replace(SPACES, ' ').trim();
  // Array.from splits by code point: a cut never leaves half a surrogate pair.
  const points = Array.from(line);
  if (points.length <= PRINTABLE_LIMIT) return line as Printable;
  return `${points
    .slice(0, PRINTABLE_LIMIT - 1)
    .join('')
    .trimEnd()}…` as Printable;
}

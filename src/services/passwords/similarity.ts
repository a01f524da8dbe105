/**
 * Python's `difflib.SequenceMatcher(None, a, b).ratio()`, which the reference uses to refuse passwords
 * too similar to the server's name, the email or the full name. The `difflib` package is a faithful
 * port (autojunk included); we give it arrays of code points so it compares characters as Python
 * does, not UTF-16 units.
 */
import difflib from 'difflib';

export function similarity(a: string, b: string): number {
  return new difflib.SequenceMatcher(null, Array.from(a), Array.from(b)).ratio() * 100;
}

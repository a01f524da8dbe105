import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PRINTABLE_LIMIT, printable } from '../../src/services/mail/printable.js';

// Control (C0, C1), format (bidi overrides and isolates, zero-width), lone surrogates, line and
// paragraph separators.
const UNFIT = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const codePoints = (value: string): number => Array.from(value).length;

/** Strings rich in what must go: controls, separators, bidi overrides, astral characters. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 1_100 }),
  fc.string({
    unit: fc.constantFrom(
      'a',
      ' ',
      '\t',
      '\r',
      '\n',
      '\u0085',
      '\u00a0',
      '\u00ad',
      '\u200b',
      '\u2028',
      '\u2029',
      '\u202e',
      '\u2066',
      '\ufeff',
      '\ud800',
      '😀',
      'é',
    ),
    maxLength: 1_100,
  }),
);

describe('printable (text fit to print in a mail)', () => {
  it('is one line: no control, format or separator character, no run of spaces, trimmed', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const out = printable(value);
        assert.ok(!UNFIT.test(out), JSON.stringify(out));
        assert.ok(!/\s\s/u.test(out) && !/[^\S ]/u.test(out), JSON.stringify(out));
        assert.equal(out, out.trim());
      }),
      { numRuns: 500 },
    );
  });

  it('never exceeds the limit, cuts on a code point with an ellipsis, and is idempotent', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const out = printable(value);
        assert.ok(codePoints(out) <= PRINTABLE_LIMIT, `${codePoints(out)} code points`);
        assert.ok(!/\p{Cs}/u.test(out), 'no half surrogate pair');
        assert.equal(printable(out), out);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves an ordinary user agent as it is', () => {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
    assert.equal(printable(ua), ua);
    assert.equal(printable('2001:db8::1'), '2001:db8::1');
  });

  it('folds line breaks to one space and cuts long text to 200 code points', () => {
    assert.equal(printable(' a\r\n\r\nb\u2028c\t\u202Ed '), 'a b c d');
    const cut = printable(`${'😀'.repeat(150)}\n${'x'.repeat(100)}`);
    assert.equal(codePoints(cut), PRINTABLE_LIMIT);
    assert.ok(cut.startsWith('😀'.repeat(150) + ' x') && cut.endsWith('x…'));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatDateTime, parseDateTime } from '../../src/protocol/index.js';

describe('datetimes', () => {
  it('writes UTC with microseconds and an offset', () => {
    assert.equal(formatDateTime(Date.UTC(2026, 10, 22, 1, 41, 29, 123)), '2026-11-22T01:41:29.123000+00:00');
  });
  it('reads what it writes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        assert.equal(parseDateTime(formatDateTime(ms)), ms);
      }),
    );
  });
  it('reads the ISO 8601 forms frontends send; no offset means UTC', () => {
    const at = Date.UTC(2026, 10, 22, 1, 41, 29, 123);
    for (const text of [
      '2026-11-22T01:41:29.123',
      '2026-11-22T01:41:29.123456',
      '2026-11-22T01:41:29.123Z',
      '2026-11-22 01:41:29.123+00:00',
      '2026-11-22T02:41:29.123+01:00',
      '2026-11-21T20:41:29.123-0500',
    ]) {
      assert.equal(parseDateTime(text), at, text);
    }
    assert.equal(parseDateTime('2026-11-22T01:41'), Date.UTC(2026, 10, 22, 1, 41));
  });
  it('refuses what is not a date-time', () => {
    for (const text of [
      '',
      'tomorrow',
      '2026-02-31T00:00:00',
      '2026-13-01T00:00:00',
      '2026-11-22',
      '2026-11-22T25:00:00',
      '2026-11-22T01:00:00+24:00',
    ]) {
      assert.equal(parseDateTime(text), null, text);
    }
  });
});

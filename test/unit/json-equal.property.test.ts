import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { holdsItems, jsonEqual } from '../../src/domain/json-equal.js';
import type { JsonObject, JsonValue } from '../../src/protocol/index.js';

/** An independent model: JSON text with object keys sorted, so equal values give equal text. */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`)
      .join(',')}}`;
  }
  // JSON has one zero: -0 and 0 are the same number on the wire.
  return JSON.stringify(value);
}

/** Values from a small alphabet, so that equal and nearly equal values are frequent. */
const small: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<JsonValue>(null, true, false, 0, 1, -1, 1.5, '', '1', 'true', 'a'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** The same value with every object's keys in another order. */
function shuffled(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(shuffled);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .reverse()
        .map((key) => [key, shuffled(value[key]!)]),
    );
  }
  return value;
}

describe('jsonEqual', () => {
  it('agrees with comparing canonical JSON text', () => {
    fc.assert(
      fc.property(small, small, (a, b) => {
        assert.equal(jsonEqual(a, b), canonical(a) === canonical(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('ignores the order of object keys, never the order of array items', () => {
    fc.assert(
      fc.property(small, (a) => {
        assert.equal(jsonEqual(a, shuffled(a)), true);
      }),
    );
    assert.equal(jsonEqual([1, 2], [2, 1]), false);
  });

  it('keeps types apart', () => {
    const values: JsonValue[] = [1, '1', true, null, 0, '', false, [], {}, [1], { 0: 1 }, ['1']];
    for (const [i, a] of values.entries())
      for (const [j, b] of values.entries()) assert.equal(jsonEqual(a, b), i === j, `${canonical(a)} ${canonical(b)}`);
  });
});

describe('holdsItems', () => {
  it('holds exactly when every wanted item is stored with a deep-equal value', () => {
    const dict = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), small, { maxKeys: 4 }) as fc.Arbitrary<JsonObject>;
    fc.assert(
      fc.property(dict, dict, (stored, wanted) => {
        const model = Object.keys(wanted).every(
          (key) => key in stored && canonical(stored[key]!) === canonical(wanted[key]!),
        );
        assert.equal(holdsItems(stored, wanted), model);
        assert.equal(holdsItems(stored, Object.fromEntries(Object.entries(stored).slice(0, 2))), true);
      }),
      { numRuns: 2000 },
    );
  });

  it('holds nothing for a missing or malformed stored value', () => {
    assert.equal(holdsItems(null, { a: 1 }), false);
    assert.equal(holdsItems([1] as unknown as JsonObject, { 0: 1 }), false);
    assert.equal(holdsItems({ a: undefined } as unknown as JsonObject, { a: null }), false);
  });
});

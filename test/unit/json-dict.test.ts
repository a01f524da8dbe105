import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isBoundedDict, mergeDict } from '../../src/domain/json-dict.js';
import { isSafeText } from '../../src/protocol/index.js';

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe('bounded dicts', () => {
  it('accepts ordinary objects', () => {
    assert.ok(isBoundedDict({ org: 'x', tags: ['a', 'b'], n: 1.5, ok: true, none: null }));
    assert.ok(isBoundedDict({}));
  });
  it('refuses what is not an object', () => {
    for (const value of [null, [], 'x', 1, true]) assert.equal(isBoundedDict(value), false);
  });
  it('allows 16 levels and refuses 17, without recursion even at 100,000 levels', () => {
    assert.ok(isBoundedDict(nested(15)));
    assert.equal(isBoundedDict(nested(17)), false);
    assert.equal(isBoundedDict(JSON.parse('{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}')), false);
  });
  it('refuses more than 256 members and elements in all', () => {
    const wide = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`k${i}`, i]));
    assert.ok(isBoundedDict(wide));
    assert.equal(isBoundedDict({ ...wide, one: 'more' }), false);
    assert.equal(isBoundedDict({ list: Array.from({ length: 300 }, (_, i) => i) }), false);
  });
  it('refuses __proto__, constructor and prototype keys at any depth', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      assert.equal(isBoundedDict(JSON.parse(`{"${key}": {"x": 1}}`)), false);
      assert.equal(isBoundedDict(JSON.parse(`{"a": [{"${key}": 1}]}`)), false);
    }
  });
  it('refuses NUL and lone surrogates in keys and values', () => {
    assert.equal(isBoundedDict({ a: 'x\u0000y' }), false);
    assert.equal(isBoundedDict({ ['k\u0000']: 1 }), false);
    assert.equal(isBoundedDict({ a: '\ud800' }), false);
    assert.ok(isBoundedDict({ a: '\ud83d\ude00' }), 'a surrogate pair is fine');
  });
  it('isSafeText agrees with well-formedness for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const wellFormed = Buffer.from(s, 'utf8').toString('utf8') === s;
        assert.equal(isSafeText(s), wellFormed && !s.includes('\u0000'));
      }),
    );
  });
});

describe('mergeDict', () => {
  it('sets, replaces and deletes items; __delete__ on an absent key is a no-op', () => {
    assert.deepEqual(mergeDict({ a: 1, b: 2 }, { b: 3, c: 4, a: '__delete__', z: '__delete__' }), { b: 3, c: 4 });
  });
  it('never lets a __proto__ key reach the prototype', () => {
    const merged = mergeDict({}, JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, never>);
    assert.deepEqual(merged, { x: 1 });
    assert.equal(Object.getPrototypeOf(merged), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});

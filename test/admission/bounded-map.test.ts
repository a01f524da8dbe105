/**
 * BoundedMap keeps one iterator across calls to find its oldest entry cheaply; it must still drop exactly
 * what a plain least-recently-written map drops, whatever mix of writes, rewrites, deletes and sweeps.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { BoundedMap } from '../../src/services/admission/memory-store.js';

type Op = { kind: 'set' | 'delete' | 'sweep'; key: number; value: number };

/** The obvious model: a fresh front-to-back scan every time. */
function model(limit: number, ops: readonly Op[]): Array<[string, number]> {
  const map = new Map<string, number>();
  for (const op of ops) {
    const key = `k${op.key}`;
    if (op.kind === 'set') {
      map.delete(key);
      map.set(key, op.value);
      while (map.size > limit) map.delete(map.keys().next().value as string);
    } else if (op.kind === 'delete') map.delete(key);
    else
      for (let i = 0; i < 2; i++) {
        const first = map.entries().next();
        if (first.done === true || first.value[1] > op.value) break;
        map.delete(first.value[0]);
      }
  }
  return [...map];
}

it('drops the same entries as a plain least-recently-written map', () => {
  const op = fc.record({
    kind: fc.constantFrom<Op['kind']>('set', 'set', 'delete', 'sweep'),
    key: fc.integer({ min: 0, max: 12 }),
    value: fc.integer({ min: 0, max: 9 }),
  });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 120 }), (limit, ops) => {
      const bounded = new BoundedMap<number>(limit);
      for (const { kind, key, value } of ops) {
        if (kind === 'set') bounded.set(`k${key}`, value);
        else if (kind === 'delete') bounded.delete(`k${key}`);
        else bounded.sweep((v) => v <= value, 2);
      }
      const expected = model(limit, ops);
      assert.equal(bounded.size, expected.length);
      for (const [key, value] of expected) assert.equal(bounded.get(key), value);
      // The order too: dropping everything through writes evicts in the model's order.
      const order: string[] = [];
      for (const [key] of expected) {
        bounded.sweep(() => true, 1);
        if (bounded.get(key) === undefined) order.push(key);
      }
      assert.deepEqual(
        order,
        expected.map(([key]) => key),
      );
    }),
    { numRuns: 500 },
  );
});

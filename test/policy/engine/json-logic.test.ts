/**
 * Our JSON-Logic (src/services/policy/logic): the safe subset of docs/design.md#json-logic-our-own-evaluator, checked
 * statically, evaluated on null-prototype facts, and — on the conditions both accept — deciding as json-logic-js does.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import jsonLogicJs from 'json-logic-js';
import { PKG_DIR } from '../../../src/package-dir.js';
import type { AccessRequest } from '../../../src/services/policy/engine/decision.js';
import { accessFacts, limitFacts } from '../../../src/services/policy/engine/logic/facts.js';
import { jsonLogic } from '../../../src/services/policy/engine/logic/json-logic.js';
import { relationOf } from '../../../src/services/policy/engine/relation.js';

const request: AccessRequest = {
  userId: 10,
  role: 'authenticated',
  action: 'view',
  item: 'dataset',
  owner: 20,
  visibility: 'shared',
  sharedWith: [10, 30],
};
const facts = accessFacts(request, relationOf(request.userId, request.owner, request.sharedWith));
const holds = (condition: unknown): boolean => {
  assert.deepEqual(jsonLogic.check(condition, 'access'), [], JSON.stringify(condition));
  return jsonLogic.compile(condition)(facts);
};

describe('the JSON-Logic evaluator', () => {
  it('evaluates every operator of the safe set', () => {
    const truths: unknown[] = [
      { and: [true, 1, 'x'] },
      { or: [false, 0, { var: 'target.is_shared_with' }] },
      { '!': { var: 'target.is_owner' } },
      { '!!': [{ var: 'target.sharedwith' }] },
      { if: [{ var: 'target.is_owner' }, false, { '===': [{ var: 'action' }, 'view'] }, true, false] },
      { '===': [{ var: 'user.role' }, 'authenticated'] },
      { '!==': [{ var: 'user.id' }, 11] },
      { '<': [{ var: 'user.id' }, { var: 'target.owner' }] },
      { '<': [1, { var: 'user.id' }, 11] },
      { '<=': [10, { var: 'user.id' }, 10] },
      { '>': [{ var: 'target.owner' }, 19.5] },
      { '>=': [{ var: 'target.owner' }, 20] },
      { in: [30, { var: 'target.sharedwith' }] },
      { in: ['data', { var: 'target.name' }] },
      { in: [{ var: 'target.visibility' }, ['shared', 'public']] },
      { some: [{ var: 'target.sharedwith' }, { '>': [{ var: '' }, 20] }] },
      { all: [{ var: 'target.sharedwith' }, { '>=': [{ var: '' }, 10] }] },
      { none: [{ var: 'target.sharedwith' }, { '===': [{ var: '' }, 2] }] },
      { '!': { missing: ['user.role', 'action'] } },
    ];
    for (const condition of truths) assert.equal(holds(condition), true, JSON.stringify(condition));
    const falsehoods: unknown[] = [
      { and: [true, []] },
      { '!!': [[]] },
      { '<': [{ var: 'user.id' }, 10] },
      { all: [[], true] },
      { some: [[], true] },
      { in: [2, { var: 'target.sharedwith' }] },
      { if: [false, true] },
    ];
    for (const condition of falsehoods) assert.equal(holds(condition), false, JSON.stringify(condition));
  });

  it('compares numbers only: no coercion of strings or null (json-logic-js would say "10" > 9)', () => {
    const compiled = jsonLogic.compile({ '>': [{ var: 'user.role' }, 9] });
    assert.equal(compiled(accessFacts({ ...request, role: '10' }, 'other')), false);
    assert.equal(jsonLogicJs.apply({ '>': ['10', 9] }), true);
  });

  it('reads facts from null-prototype records holding only the allow-listed variables', () => {
    assert.equal(Object.getPrototypeOf(facts), null);
    assert.ok(Object.isFrozen(facts));
    assert.deepEqual(Object.keys(facts).sort(), [
      'action',
      'target.is_owner',
      'target.is_shared_with',
      'target.name',
      'target.owner',
      'target.sharedwith',
      'target.visibility',
      'user.id',
      'user.role',
    ]);
    const limits = limitFacts({ userId: 1, role: 'staff', name: 'quota', value: 3 });
    assert.equal(Object.getPrototypeOf(limits), null);
    assert.deepEqual(Object.keys(limits).sort(), ['limit_name', 'user.id', 'user.role', 'value']);
  });

  it('refuses what json-logic-js would reach beyond the data, and unsafe operators', () => {
    const problems = (condition: unknown, scope: 'access' | 'limit' = 'access') =>
      jsonLogic.check(condition, scope).map((p) => `${p.kind} ${p.pointer}`);
    assert.deepEqual(problems({ var: 'user.constructor' }), ['variable /var']);
    assert.deepEqual(problems({ var: 'user.__proto__' }), ['variable /var']);
    assert.deepEqual(problems({ var: ['user.id', 5] }), ['condition /var']);
    assert.deepEqual(problems({ var: { var: 'action' } }), ['variable /var']);
    assert.deepEqual(problems({ var: '' }), ['variable /var']);
    assert.deepEqual(problems({ some: [{ var: 'target.sharedwith' }, { var: 'user.id' }] }), ['variable /some/1/var']);
    for (const op of ['==', '!=', 'method', 'cat', 'substr', 'merge', 'map', 'reduce', '+', 'log']) {
      assert.deepEqual(problems({ [op]: [1, 1] }), [`operator /${op}`], op);
    }
    assert.deepEqual(problems({ '===': [1, 2], '!==': [1, 2] }), ['condition ']);
    assert.deepEqual(problems({}), ['condition ']);
    assert.deepEqual(problems({ '===': [1] }), ['condition /===']);
    assert.deepEqual(problems({ '<': [{ var: 'value' }, '10'] }, 'limit'), ['never-matches /</1']);
    assert.deepEqual(problems({ var: 'value' }), ['variable /var']);
    assert.deepEqual(problems({ var: 'target.name' }, 'limit'), ['variable /var']);
  });

  it('measures depth and size without recursion, before any other check', () => {
    let deep: unknown = true;
    for (let i = 0; i < 5000; i++) deep = { '!': deep };
    assert.deepEqual(
      jsonLogic.check(deep, 'access').map((p) => p.kind),
      ['condition-size', 'condition-depth'],
    );
    let sixteen: unknown = { var: 'target.is_owner' };
    for (let i = 0; i < 15; i++) sixteen = { '!': sixteen };
    assert.deepEqual(jsonLogic.check(sixteen, 'access'), []);
    assert.deepEqual(
      jsonLogic.check({ '!': sixteen }, 'access').map((p) => p.kind),
      ['condition-depth'],
    );
    const wide = { in: [{ var: 'user.id' }, Array.from({ length: 252 }, (_, i) => i)] };
    // in, var, "user.id", the list and its 252 numbers: 256 nodes.
    assert.deepEqual(jsonLogic.check(wide, 'access'), []);
    wide.in[1] = Array.from({ length: 253 }, (_, i) => i);
    assert.deepEqual(
      jsonLogic.check(wide, 'access').map((p) => p.kind),
      ['condition-size'],
    );
  });

  it('knows a condition that is always false without facts', () => {
    assert.equal(jsonLogic.constant({ and: [{ var: 'target.is_owner' }, false] }), false);
    assert.equal(jsonLogic.constant({ or: [{ var: 'target.is_owner' }, 1] }), true);
    assert.equal(jsonLogic.constant({ '===': [1, 2] }), false);
    assert.equal(jsonLogic.constant({ var: 'target.is_owner' }), undefined);
  });

  it('is never imported at run time as json-logic-js (its add_operation is process-global)', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    for (const file of sources(join(PKG_DIR, 'src'))) {
      assert.doesNotMatch(readFileSync(file, 'utf8'), /from 'json-logic-js'/, file);
    }
  });
});

// Well-typed conditions over the access facts, in the subset where both evaluators agree by design
// (comparisons of numbers, membership of a string in a string only for strings).
const NUMBERS = [0, 2, 10, 20, 30, 41];
const STRINGS = ['authenticated', 'staff', 'view', 'edit', 'dataset', 'data', 'shared', 'private', ''];
const num = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.constantFrom('user.id', 'target.owner').map((v) => ({ var: v })),
);
const str = fc.oneof(
  fc.constantFrom(...STRINGS),
  fc.constantFrom('user.role', 'action', 'target.name', 'target.visibility').map((v) => ({ var: v })),
);
const list = fc.oneof(
  fc.constant({ var: 'target.sharedwith' }),
  fc.array(fc.constantFrom(...NUMBERS), { maxLength: 3 }),
);
const element = fc.oneof(
  fc.constantFrom(...NUMBERS).map((n) => ({ '===': [{ var: '' }, n] })),
  fc.constantFrom(...NUMBERS).map((n) => ({ '>': [{ var: '' }, n] })),
);
const { cond } = fc.letrec<{ cond: unknown }>((tie) => ({
  cond: fc.oneof(
    { maxDepth: 4, depthSize: 'small' },
    fc.boolean(),
    fc.constantFrom('target.is_owner', 'target.is_shared_with').map((v) => ({ var: v })),
    fc.tuple(fc.constantFrom('===', '!==', '<', '<=', '>', '>='), num, num).map(([op, a, b]) => ({ [op]: [a, b] })),
    fc.tuple(fc.constantFrom('<', '<='), num, num, num).map(([op, a, b, c]) => ({ [op]: [a, b, c] })),
    fc.tuple(fc.constantFrom('===', '!=='), str, str).map(([op, a, b]) => ({ [op]: [a, b] })),
    fc.tuple(num, list).map(([a, b]) => ({ in: [a, b] })),
    fc.tuple(str, fc.oneof(str, fc.array(fc.constantFrom(...STRINGS), { maxLength: 3 }))).map(([a, b]) => ({
      in: [a, b],
    })),
    fc.tuple(fc.constantFrom('some', 'all', 'none'), list, element).map(([op, l, e]) => ({ [op]: [l, e] })),
    fc.constantFrom(['user.role'], ['action', 'target.name']).map((names) => ({ '!': { missing: names } })),
    tie('cond').map((c) => ({ '!': c })),
    tie('cond').map((c) => ({ '!!': [c] })),
    fc.array(tie('cond'), { minLength: 1, maxLength: 3 }).map((cs) => ({ and: cs })),
    fc.array(tie('cond'), { minLength: 1, maxLength: 3 }).map((cs) => ({ or: cs })),
    fc.tuple(tie('cond'), tie('cond'), tie('cond')).map((cs) => ({ if: cs })),
  ),
}));
const requestArb = fc.record({
  userId: fc.constantFrom(2, 10, 20, 30),
  owner: fc.constantFrom(10, 20),
  role: fc.constantFrom('authenticated', 'staff', ''),
  action: fc.constantFrom('view', 'edit'),
  item: fc.constantFrom('dataset', 'object'),
  visibility: fc.constantFrom('shared', 'private', ''),
  sharedWith: fc.subarray([2, 10, 30, 41]),
});

describe('our JSON-Logic against json-logic-js', () => {
  it('decides every well-typed condition of the safe set as json-logic-js does', () => {
    fc.assert(
      fc.property(cond, requestArb, (condition, r) => {
        assert.deepEqual(jsonLogic.check(condition, 'access'), [], JSON.stringify(condition));
        const relation = relationOf(r.userId, r.owner, r.sharedWith);
        const ours = jsonLogic.compile(condition)(accessFacts(r, relation));
        const data = {
          user: { id: r.userId, role: r.role },
          action: r.action,
          target: {
            name: r.item,
            owner: r.owner,
            visibility: r.visibility,
            sharedwith: r.sharedWith,
            is_owner: relation === 'owner',
            is_shared_with: r.sharedWith.includes(r.userId) || r.sharedWith.includes(2),
          },
        };
        const theirs = jsonLogicJs.truthy(jsonLogicJs.apply(condition as jsonLogicJs.RulesLogic, data));
        assert.equal(ours, theirs, JSON.stringify({ condition, data }));
      }),
      { numRuns: 2000 },
    );
  });
});

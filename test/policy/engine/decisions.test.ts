import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../../src/package-dir.js';
import { ANY_ACTION, ANY_SUBJECT } from '../../../src/services/policy/engine/ability.js';
import { checkLimit } from '../../../src/services/policy/engine/check-limit.js';
import type { AccessRequest } from '../../../src/services/policy/engine/decision.js';
import { ask as askOf } from '../../helpers/access.js';
import { compilePolicyBytes } from '../../../src/services/policy/authoring/policy-file.js';
import { loadPolicyFile } from '../../../src/services/policy/load.js';
import { relationOf } from '../../../src/services/policy/engine/relation.js';
import { MAX_SHARED_WITH, parseSharedWith } from '../../../src/services/policy/engine/shared-with.js';

const loaded = loadPolicyFile(join(PKG_DIR, 'policy', 'default.json'));
assert.ok(loaded.ok);
const policy = loaded.policy.compiled;

const ask = (request: Partial<AccessRequest>) => askOf(policy, request);

describe('target_sharedwith', () => {
  it('takes comma-separated ids, blanks and empty entries ignored, duplicates once', () => {
    assert.deepEqual(parseSharedWith('1,2,3'), { ok: true, ids: [1, 2, 3] });
    assert.deepEqual(parseSharedWith(' 4 ,\t5 , 4,, ,6, '), { ok: true, ids: [4, 5, 6] });
    assert.deepEqual(parseSharedWith('007'), { ok: true, ids: [7] });
    assert.deepEqual(parseSharedWith('2147483647'), { ok: true, ids: [2147483647] });
  });

  it('means nobody when empty, blank or none (any case)', () => {
    for (const text of ['', '   ', ' , , ', 'none', 'NONE', ' None ']) {
      assert.deepEqual(parseSharedWith(text), { ok: true, ids: [] }, JSON.stringify(text));
    }
  });

  it('refuses anything but ids, and more than 1,000 of them', () => {
    for (const text of [
      'a',
      '1.5',
      '-1',
      '+3',
      '0',
      '1e3',
      '2147483648',
      '99999999999',
      '１',
      '1;2',
      'none,3',
      '0x10',
    ]) {
      const parsed = parseSharedWith(text);
      assert.equal(parsed.ok, false, text);
    }
    const many = Array.from({ length: MAX_SHARED_WITH }, (_, i) => i + 1);
    assert.equal(parseSharedWith(many.join(',')).ok, true);
    assert.deepEqual(parseSharedWith([...many, 1].join(',')), { ok: false, problem: 'more than 1000 user ids' });
  });
});

describe('the relation', () => {
  it('is computed before the check: owner, shared (listed, or everyone when 2 is listed), other', () => {
    assert.equal(relationOf(5, 5, [6]), 'owner');
    assert.equal(relationOf(5, 6, [5]), 'shared');
    assert.equal(relationOf(5, 6, [2]), 'shared');
    assert.equal(relationOf(5, 6, [7, 8]), 'other');
    assert.equal(relationOf(5, 6, []), 'other');
  });
});

describe('access decisions', () => {
  it('explain an allow by the rule that decided it, with JSON pointers into the policy', () => {
    const owned = ask({ owner: 10, action: 'edit' });
    assert.equal(owned.allowed, true);
    assert.equal(owned.relation, 'owner');
    assert.deepEqual(owned.explanation, {
      stage: 'policy',
      check: 'allowed-for-owned',
      reason:
        '"edit" is allowed: user 10 owns the item; the role "authenticated" can own "dataset" items, and both its allowed_actions_for_owned and the item\'s valid_role_actions include the action',
      policy: [
        '/role_policy/authenticated/can_own_items',
        '/role_policy/authenticated/allowed_actions_for_owned',
        '/item_policy/dataset/valid_role_actions',
      ],
    });
    const everyone = ask({ visibility: 'shared', sharedWith: [30, 2], action: 'edit' });
    assert.equal(everyone.allowed, true);
    assert.match(everyone.explanation.reason, /the anonymous user 2 is listed in target_sharedwith/);
    const staff = ask({ role: 'staff', visibility: 'private', action: 'list' });
    assert.match(staff.explanation.reason, /the role "staff" skips the relationship gate/);
  });

  it('explain a denial by the first failing check', () => {
    const cases: Array<[Partial<AccessRequest>, string, RegExp]> = [
      [{ role: 'ghost' }, 'unknown-role', /the role "ghost" is not in the policy/],
      [{ item: 'ghost' }, 'unknown-item', /the item "ghost"/],
      [{ action: 'ghost' }, 'unknown-action', /the action "ghost"/],
      [{ visibility: 'ghost' }, 'unknown-visibility', /the visibility "ghost"/],
      [{ item: 'user' }, 'role-invalid-for-item', /"authenticated" may never act on "user" items/],
      [{ item: 'apikey' }, 'visibility-invalid-for-item', /"apikey" items cannot have the visibility "public"/],
      [
        { item: 'session', role: 'superuser', visibility: 'private', action: 'edit' },
        'action-invalid-for-item',
        /never taken on "session"/,
      ],
      [{ visibility: 'private' }, 'relationship-gate', /private and user 10 does not own it/],
      [{ visibility: 'shared', sharedWith: [30] }, 'relationship-gate', /neither owns it nor is listed/],
      [{ item: 'object', owner: 10 }, 'role-cannot-own-item', /cannot own "object" items/],
      [{ owner: 10, action: 'change_owner' }, 'not-allowed-for-owned', /may not "change_owner" items it owns/],
      [{ action: 'edit' }, 'not-allowed-for-other', /may not "edit" other users' public items/],
    ];
    for (const [request, check, reason] of cases) {
      const decision = ask(request);
      assert.equal(decision.allowed, false, JSON.stringify(request));
      assert.equal(decision.explanation.check, check, JSON.stringify(request));
      assert.match(decision.explanation.reason, reason);
    }
  });

  it('cannot be widened by CASL wildcards or its internal names', () => {
    for (const action of ['manage', ANY_ACTION]) assert.equal(ask({ action, owner: 10 }).allowed, false);
    for (const item of ['all', ANY_SUBJECT]) assert.equal(ask({ item, owner: 10 }).allowed, false);
    const bytes = readFileSync(join(PKG_DIR, 'policy', 'default.json'), 'utf8').replace(
      '"change_owner"',
      '"\\u0000any-action"',
    );
    assert.equal(compilePolicyBytes(Buffer.from(bytes)).ok, false, 'no policy can name the wildcard');
  });

  it('hands out fresh explanation arrays, so no caller can alter the compiled policy', () => {
    const first = ask({ owner: 10 });
    first.explanation.policy.push('/mutated');
    assert.ok(!ask({ owner: 10 }).explanation.policy.includes('/mutated'));
  });
});

describe('limit decisions', () => {
  it('read int limits as Python int() does and explain the comparison', () => {
    const under = checkLimit(policy, {
      userId: 10,
      role: 'authenticated',
      name: 'max_requests_per_minute',
      value: 5999.99,
    });
    assert.deepEqual(under, {
      passed: true,
      explanation: {
        stage: 'policy',
        check: 'limit-passed',
        reason:
          'the role "authenticated" has max_requests_per_minute = 6000 of kind "max" (int, passes when value < limit): 5999 < 6000',
        policy: ['/role_policy/authenticated/limits/max_requests_per_minute', '/limits/max'],
      },
    });
    const zero = checkLimit(policy, { userId: 10, role: 'locked', name: 'max_requests', value: -0.5 });
    assert.equal(zero.passed, false);
    assert.match(zero.explanation.reason, /: not 0 < 0$/);
  });

  it('compare floats as they are, and honour gt (a minimum)', () => {
    const doc = JSON.parse(readFileSync(join(PKG_DIR, 'policy', 'default.json'), 'utf8')) as {
      limits: Record<string, unknown>;
      role_policy: Record<string, { limits?: Record<string, unknown> }>;
    };
    doc.limits['min'] = { type: 'float', operator: 'gt' };
    doc.role_policy['staff']!.limits = { balance: { type: 'min', limit: 0.5 } };
    const compiled = compilePolicyBytes(Buffer.from(JSON.stringify(doc)));
    assert.ok(compiled.ok);
    const check = (value: number) =>
      checkLimit(compiled.compiled, { userId: 10, role: 'staff', name: 'balance', value }).passed;
    assert.equal(check(0.51), true);
    assert.equal(check(0.5), false);
    assert.equal(check(0.49), false);
  });

  it('pass a limit the role lacks, and fail a role the policy lacks', () => {
    assert.equal(checkLimit(policy, { userId: 10, role: 'superuser', name: 'unheard_of', value: 1e300 }).passed, true);
    const ghost = checkLimit(policy, { userId: 10, role: 'constructor', name: 'max_requests', value: 1 });
    assert.equal(ghost.passed, false);
    assert.equal(ghost.explanation.check, 'unknown-role');
  });
});

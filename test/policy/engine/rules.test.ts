/**
 * The rule DSL (docs/design.md#rules-and-conditions) in the engine: decision = (tables ∨ a matching allow) ∧ no
 * matching deny; the item_policy restrictions apply to rules, the relationship gate does not; the
 * deciding rule's reason is the explanation. JSON-Logic limits.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../../src/package-dir.js';
import { checkLimit } from '../../../src/services/policy/engine/check-limit.js';
import type { CompiledPolicy } from '../../../src/services/policy/engine/compiled-policy.js';
import type { AccessRequest } from '../../../src/services/policy/engine/decision.js';
import { ask } from '../../helpers/access.js';
import { compilePolicyBytes } from '../../../src/services/policy/authoring/policy-file.js';
import { describeProblem } from '../../../src/services/policy/authoring/problems.js';

const DEFAULT = JSON.parse(readFileSync(join(PKG_DIR, 'policy', 'default.json'), 'utf8')) as Record<string, unknown>;

function compile(rules: unknown[], limits: Record<string, unknown> = {}): CompiledPolicy {
  const doc = structuredClone(DEFAULT);
  doc['rules'] = rules;
  const rolePolicy = doc['role_policy'] as Record<string, { limits?: Record<string, unknown> }>;
  Object.assign((rolePolicy['authenticated'] ??= {}).limits ?? {}, limits);
  const compiled = compilePolicyBytes(Buffer.from(JSON.stringify(doc)));
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.problems.map(describeProblem).join('\n'));
  return compiled.compiled;
}

const rule = (fields: Record<string, unknown>) => ({
  effect: 'allow',
  roles: ['authenticated'],
  items: ['dataset'],
  actions: ['view'],
  reason: 'a reason',
  ...fields,
});

describe('rules', () => {
  it('deny wins over the tables, and its reason and pointer explain the decision', () => {
    const policy = compile([
      rule({ effect: 'deny', when: { '!': { var: 'target.is_owner' } }, reason: 'only owners look at datasets' }),
    ]);
    assert.deepEqual(ask(policy, {}), {
      allowed: false,
      relation: 'other',
      explanation: {
        stage: 'policy',
        check: 'denied-by-rule',
        reason: 'only owners look at datasets',
        policy: ['/rules/0'],
      },
    });
    assert.equal(ask(policy, { owner: 10 }).allowed, true, 'the condition does not hold for the owner');
    assert.equal(ask(policy, { owner: 10 }).explanation.check, 'allowed-for-owned');
    assert.equal(ask(policy, { action: 'list' }).allowed, true, 'other actions are not concerned');
  });

  it('allow extends the tables, past the relationship gate, only as far as its visibilities and condition say', () => {
    const policy = compile([
      rule({
        actions: ['edit'],
        visibilities: ['private'],
        when: { in: [{ var: 'user.id' }, { var: 'target.sharedwith' }] },
        reason: 'collaborators edit private datasets',
      }),
    ]);
    const edit = { action: 'edit', visibility: 'private' };
    assert.deepEqual(ask(policy, { ...edit, sharedWith: [10] }).explanation, {
      stage: 'policy',
      check: 'allowed-by-rule',
      reason: 'collaborators edit private datasets',
      policy: ['/rules/0'],
    });
    assert.equal(ask(policy, { ...edit, sharedWith: [11] }).explanation.check, 'relationship-gate');
    assert.equal(ask(policy, { ...edit, visibility: 'shared', sharedWith: [] }).allowed, false, 'not its visibility');
    assert.equal(ask(policy, { ...edit, role: 'staff', sharedWith: [10] }).allowed, false, 'not its role');
  });

  it('leaves a decision the tables made to the tables: an allowed request names its table rule', () => {
    const policy = compile([rule({ reason: 'redundant' })]);
    assert.equal(ask(policy, {}).explanation.check, 'allowed-for-other');
    assert.equal(ask(policy, { visibility: 'private' }).explanation.check, 'allowed-by-rule');
  });

  it('keeps the item_policy restrictions: invalid_roles, valid_role_actions and valid_visibilities', () => {
    // apikey: actions list, view, create, delete; visibility private only; invalid for anonymous and locked.
    const policy = compile([
      rule({
        roles: ['authenticated', 'anonymous'],
        items: ['dataset', 'apikey'],
        actions: ['view', 'edit'],
        visibilities: ['private', 'public'],
        reason: 'wide',
      }),
    ]);
    assert.equal(ask(policy, { item: 'apikey', visibility: 'private' }).explanation.check, 'allowed-by-rule');
    assert.equal(
      ask(policy, { item: 'apikey', visibility: 'public' }).explanation.check,
      'visibility-invalid-for-item',
    );
    assert.equal(
      ask(policy, { item: 'apikey', visibility: 'private', action: 'edit' }).explanation.check,
      'action-invalid-for-item',
    );
    assert.equal(
      ask(policy, { role: 'anonymous', item: 'apikey', visibility: 'private' }).explanation.check,
      'role-invalid-for-item',
    );
    assert.equal(
      ask(policy, { role: 'anonymous', visibility: 'private', action: 'edit' }).explanation.check,
      'allowed-by-rule',
    );
  });

  it('reports the first matching deny rule of the document, then the first matching allow rule', () => {
    const policy = compile([
      rule({ reason: 'allow one', visibilities: ['private'] }),
      rule({ effect: 'deny', when: { '===': [{ var: 'user.id' }, 10] }, reason: 'deny one' }),
      rule({ reason: 'allow two', visibilities: ['private'] }),
      rule({ effect: 'deny', reason: 'deny two' }),
    ]);
    assert.equal(ask(policy, {}).explanation.reason, 'deny one');
    assert.equal(ask(policy, { userId: 11 }).explanation.reason, 'deny two');
    const allows = compile([
      rule({ reason: 'allow one', visibilities: ['private'], when: { var: 'target.is_shared_with' } }),
      rule({ reason: 'allow two', visibilities: ['private'] }),
    ]);
    assert.equal(ask(allows, { visibility: 'private' }).explanation.reason, 'allow two');
    assert.equal(ask(allows, { visibility: 'private', sharedWith: [10] }).explanation.reason, 'allow one');
  });

  it('gives conditions every variable of the request', () => {
    // Each condition holds for the request beside it, and not for the default one (user 10 on user 20's item).
    const cases: Array<[unknown, Partial<AccessRequest>]> = [
      [{ '===': [{ var: 'user.id' }, 11] }, { userId: 11 }],
      [{ '===': [{ var: 'user.role' }, 'staff'] }, { role: 'staff' }],
      [{ '===': [{ var: 'action' }, 'list'] }, { action: 'list' }],
      [{ '===': [{ var: 'target.name' }, 'object'] }, { item: 'object' }],
      [{ '===': [{ var: 'target.owner' }, 21] }, { owner: 21 }],
      [{ some: [{ var: 'target.sharedwith' }, { '>': [{ var: '' }, 40] }] }, { sharedWith: [41] }],
      [{ var: 'target.is_shared_with' }, { sharedWith: [2] }],
    ];
    for (const [when, request] of cases) {
      const policy = compile([
        rule({
          roles: ['authenticated', 'staff'],
          items: ['dataset', 'object'],
          actions: ['view', 'list'],
          visibilities: ['private'],
          when,
        }),
      ]);
      const base = { visibility: 'private', sharedWith: [30] };
      assert.equal(ask(policy, { ...base, ...request }).explanation.check, 'allowed-by-rule', JSON.stringify(when));
      assert.equal(ask(policy, base).allowed, false, JSON.stringify(when));
    }
    const owner = compile([rule({ effect: 'deny', when: { var: 'target.is_owner' } })]);
    assert.equal(ask(owner, { owner: 10 }).explanation.check, 'denied-by-rule');
    const visibility = compile([rule({ effect: 'deny', when: { '===': [{ var: 'target.visibility' }, 'public'] } })]);
    assert.equal(ask(visibility, {}).explanation.check, 'denied-by-rule');
    assert.equal(ask(visibility, { visibility: 'unlisted' }).allowed, true);
  });

  it('decides JSON-Logic limits, with user.id, user.role, limit_name and value', () => {
    const policy = compile([], {
      upload: { rule: { and: [{ '>': [{ var: 'value' }, 0] }, { '<=': [{ var: 'value' }, 25] }] } },
      vip: { rule: { or: [{ '===': [{ var: 'user.id' }, 7] }, { '<': [{ var: 'value' }, 1] }] } },
      named: { rule: { '===': [{ var: 'limit_name' }, 'named'] } },
    });
    const limit = (name: string, value: number, userId = 10) =>
      checkLimit(policy, { userId, role: 'authenticated', name, value });
    assert.deepEqual(limit('upload', 25), {
      passed: true,
      explanation: {
        stage: 'policy',
        check: 'limit-passed',
        reason: 'the role "authenticated" has upload as a rule, which the value 25 satisfies',
        policy: ['/role_policy/authenticated/limits/upload/rule'],
      },
    });
    assert.equal(limit('upload', 25.01).explanation.check, 'limit-failed');
    assert.equal(limit('upload', 0).passed, false);
    assert.equal(limit('vip', 1000, 7).passed, true);
    assert.equal(limit('vip', 1000, 8).passed, false);
    assert.equal(limit('named', 1).passed, true);
    assert.equal(limit('max_requests', 1).explanation.check, 'limit-passed', 'compare limits still work');
  });
});

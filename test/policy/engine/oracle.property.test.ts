import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkAccess } from '../../../src/services/policy/engine/check-access.js';
import { checkLimit } from '../../../src/services/policy/engine/check-limit.js';
import type { CompiledPolicy } from '../../../src/services/policy/engine/compiled-policy.js';
import { compilePolicyBytes } from '../../../src/services/policy/authoring/policy-file.js';
import { describeProblem } from '../../../src/services/policy/authoring/problems.js';
import { parseSharedWith } from '../../../src/services/policy/engine/shared-with.js';
import { oracleAccess, oracleLimit } from './oracle.js';

// Name pools mix the reference's names with ones that would find Object.prototype in a plain object.
const ROLE_POOL = ['staff', 'editor', 'constructor', 'toString'];
const ITEM_POOL = ['object', 'dataset', 'user', 'hasOwnProperty', 'doc.v2'];
const ACTION_POOL = ['list', 'view', 'edit', 'delete', 'create', 'valueOf'];
const VISIBILITY_POOL = ['public', 'unlisted', 'shared', 'private', 'team'];
const REQUIRED = ['superuser', 'authenticated', 'anonymous', 'locked'];
const IDS = [1, 2, 3, 10, 20, 30];
const ALL_CHECKS = [
  'unknown-role',
  'unknown-item',
  'unknown-action',
  'unknown-visibility',
  'role-invalid-for-item',
  'visibility-invalid-for-item',
  'action-invalid-for-item',
  'role-cannot-own-item',
  'not-allowed-for-owned',
  'relationship-gate',
  'not-allowed-for-other',
  'allowed-for-owned',
  'allowed-for-other',
];

const subset = <T>(values: readonly T[]) => fc.subarray([...values]);
/** A list that is often the whole pool, so that random policies allow enough to be worth checking. */
const generous = <T>(values: readonly T[]) =>
  fc.oneof({ arbitrary: fc.constant([...values]), weight: 1 }, { arbitrary: fc.subarray([...values]), weight: 2 });
const someOf = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 });

/** Names the policy has, and now and then one it lacks. */
const mostly = (known: readonly string[], unknown: readonly string[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 12 }, { arbitrary: fc.constantFrom(...unknown), weight: 1 });

/** A random valid policy: every reference between its parts resolves. */
const policyArb = fc
  .record({
    extraRoles: subset(ROLE_POOL),
    items: someOf(ITEM_POOL),
    actions: someOf(ACTION_POOL),
    visibilities: someOf(VISIBILITY_POOL),
    limitKinds: fc.array(fc.record({ type: fc.constantFrom('int', 'float'), operator: fc.constantFrom('lt', 'gt') }), {
      maxLength: 2,
    }),
  })
  .chain(({ extraRoles, items, actions, visibilities, limitKinds }) => {
    const roles = [...REQUIRED, ...extraRoles];
    const kinds = Object.fromEntries(limitKinds.map((k, i) => [`kind${i}`, k]));
    const kindNames = Object.keys(kinds);
    const roleLimits =
      kindNames.length === 0
        ? fc.constant({})
        : fc.dictionary(
            fc.constantFrom('max_requests', 'min_balance', 'quota'),
            fc.constantFrom(...kindNames).chain((type) =>
              fc.record({
                type: fc.constant(type),
                limit:
                  kinds[type]?.type === 'int'
                    ? fc.integer({ min: -5, max: 5 })
                    : fc.double({ noNaN: true, noDefaultInfinity: true, min: -5, max: 5 }),
              }),
            ),
            { maxKeys: 3 },
          );
    return fc.record({
      roles: fc.constant(roles),
      items: fc.constant(items),
      actions: fc.constant(actions),
      visibilities: fc.constant(visibilities),
      limits: fc.constant(kinds),
      item_policy: fc.record(
        Object.fromEntries(
          items.map((item) => [
            item,
            fc.record({
              valid_role_actions: generous(actions),
              valid_visibilities: generous(visibilities),
              invalid_roles: fc.subarray(roles, { maxLength: 2 }),
            }),
          ]),
        ),
      ),
      role_policy: fc.record(
        Object.fromEntries(
          roles.map((role) => [
            role,
            fc.record({
              limits: roleLimits,
              can_own_items: generous(items),
              allowed_actions_for_owned: generous(actions),
              allowed_actions_for_other: generous(visibilities).chain((vs) =>
                fc.record(Object.fromEntries(vs.map((v) => [v, generous(actions)]))),
              ),
            }),
          ]),
        ),
      ),
    });
  });

function compile(doc: unknown): CompiledPolicy {
  const compiled = compilePolicyBytes(Buffer.from(JSON.stringify(doc)));
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.problems.map(describeProblem).join('\n'));
  return compiled.compiled;
}

/**
 * Shared-with as frontends send it: ids with blanks around them, or nobody. (Where we are more lenient
 * than the reference — blank entries, a padded "none" — the reference would deny even the owner of a
 * shared item; those inputs are left to the unit tests of parseSharedWith.)
 */
const sharedWithArb = fc.oneof(
  fc.constantFrom('', 'none', 'None', 'NONE'),
  fc
    .array(fc.tuple(fc.constantFrom(...IDS), fc.constantFrom('', ' ', '  ')), { minLength: 1, maxLength: 4 })
    .map((ids) => ids.map(([id, pad]) => `${pad}${id}${pad}`).join(',')),
);

describe('the compiled policy against an independent transcription of the reference (§4.3, §4.4)', () => {
  it('decides every access request as the reference algorithm does', () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(
        policyArb.chain((doc) =>
          fc.record({
            doc: fc.constant(doc),
            requests: fc.array(
              fc.record({
                userId: fc.constantFrom(...IDS),
                owner: fc.constantFrom(...IDS),
                role: mostly(doc.roles, ['ghost', 'constructor', '__proto__']),
                action: mostly(doc.actions, ['manage', 'ghost']),
                item: mostly(doc.items, ['all', 'ghost']),
                visibility: mostly(doc.visibilities, ['team', 'ghost']),
                sharedWith: sharedWithArb,
              }),
              { minLength: 50, maxLength: 50 },
            ),
          }),
        ),
        ({ doc, requests }) => {
          const policy = compile(doc);
          for (const r of requests) {
            const shared = parseSharedWith(r.sharedWith);
            assert.ok(shared.ok);
            const decision = checkAccess(policy, { ...r, sharedWith: shared.ids });
            const expected = oracleAccess(doc, r.userId, r.role, r.action, r.item, r.owner, r.visibility, r.sharedWith);
            assert.equal(decision.allowed, expected, JSON.stringify({ request: r, decision }));
            // Every denial names the check that denied it; every allow the rule that allowed it.
            assert.notEqual(decision.explanation.check, 'no-rule', JSON.stringify(r));
            assert.equal(decision.explanation.check.startsWith('allowed-'), decision.allowed);
            seen.set(decision.explanation.check, (seen.get(decision.explanation.check) ?? 0) + 1);
          }
        },
      ),
      { numRuns: 300 },
    );
    // Not vacuous: every check decided many of the 15,000 requests.
    for (const check of ALL_CHECKS) assert.ok((seen.get(check) ?? 0) >= 20, `${check}: ${seen.get(check) ?? 0}`);
  });

  it('decides every limit check as the reference does', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.array(
          fc.record({
            role: fc.constantFrom(...REQUIRED, ...ROLE_POOL, 'ghost'),
            name: fc.constantFrom('max_requests', 'min_balance', 'quota', 'ghost'),
            value: fc.oneof(
              fc.integer({ min: -7, max: 7 }),
              fc.double({ noNaN: true, noDefaultInfinity: true, min: -7, max: 7 }),
            ),
          }),
          { minLength: 1, maxLength: 20 },
        ),
        (doc, requests) => {
          const policy = compile(doc);
          for (const r of requests) {
            const decision = checkLimit(policy, { userId: 10, ...r });
            assert.equal(decision.passed, oracleLimit(doc, r.role, r.name, r.value), JSON.stringify({ r, decision }));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

/**
 * The pure policy engine: time to load and compile the default policy (the first time, with the
 * schema's compilation by ajv, then warm), and decisions per second of checkAccess and checkLimit on a
 * mix of requests covering the whole access matrix; the same for the document-sharing example (rules
 * with JSON-Logic conditions, JSON-Logic limits); and policy:lint's work on the default policy.
 *   npx tsx bench/micro/policy-engine.ts [seconds per measure=3]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';
import { checkAccess } from '../../src/services/policy/engine/check-access.js';
import { checkLimit } from '../../src/services/policy/engine/check-limit.js';
import type { AccessRequest } from '../../src/services/policy/engine/decision.js';
import type { CompiledPolicy } from '../../src/services/policy/engine/compiled-policy.js';
import { lintPolicyBytes } from '../../src/services/policy/authoring/lint.js';
import { compilePolicyBytes } from '../../src/services/policy/authoring/policy-file.js';
import { formatProblem } from '../../src/services/policy/authoring/problems.js';

const seconds = Number(process.argv[2] ?? 3);
const bytes = readFileSync(join(PKG_DIR, 'policy', 'default.json'));

let t0 = performance.now();
const first = compilePolicyBytes(bytes);
const firstMs = performance.now() - t0;
if (!first.ok) throw new Error(first.problems.map(formatProblem).join('\n'));
const policy = first.compiled;

const rounds = 200;
t0 = performance.now();
for (let i = 0; i < rounds; i++) compilePolicyBytes(bytes);
const warmMs = (performance.now() - t0) / rounds;

// Every cell of the matrix, as owner, listed in shared-with, and other.
const matrix = (policy: CompiledPolicy): AccessRequest[] => {
  const requests: AccessRequest[] = [];
  for (const role of policy.roles)
    for (const item of policy.items)
      for (const action of policy.actions)
        for (const visibility of policy.visibilities)
          for (const [owner, sharedWith] of [
            [10, []],
            [20, [10]],
            [20, [30]],
          ] as const) {
            requests.push({ userId: 10, owner, role, item, action, visibility, sharedWith });
          }
  return requests;
};
const requests = matrix(policy);

function rate(run: (i: number) => boolean): { per_s: number; allowed_share: number } {
  let n = 0;
  let allowed = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 1000; i++, n++) if (run(n)) allowed++;
  }
  return { per_s: Math.round(n / seconds), allowed_share: Number((allowed / n).toFixed(3)) };
}

const access = rate((i) => checkAccess(policy, requests[i % requests.length] as AccessRequest).allowed);
const owned = rate(
  () =>
    checkAccess(policy, {
      userId: 10,
      owner: 10,
      role: 'authenticated',
      item: 'dataset',
      action: 'edit',
      visibility: 'private',
      sharedWith: [],
    }).allowed,
);
const limits = rate(
  (i) => checkLimit(policy, { userId: 10, role: 'authenticated', name: 'max_requests', value: i % 1_000_000 }).passed,
);

const example = compilePolicyBytes(readFileSync(join(PKG_DIR, 'examples', 'document-sharing', 'policy.json')));
if (!example.ok) throw new Error('the example policy is invalid');
const rules = example.compiled;
const ruleRequests = matrix(rules);
const rulesAccess = rate((i) => checkAccess(rules, ruleRequests[i % ruleRequests.length] as AccessRequest).allowed);
const ruleLimits = rate(
  (i) => checkLimit(rules, { userId: 10, role: 'authenticated', name: 'upload_mb', value: i % 50 }).passed,
);
t0 = performance.now();
for (let i = 0; i < rounds; i++) lintPolicyBytes(bytes);
const lintMs = (performance.now() - t0) / rounds;

console.log(
  JSON.stringify({
    lint_default_ms: Number(lintMs.toFixed(2)),
    rules_access_matrix_mix: rulesAccess,
    rules_limit_checks: ruleLimits,
    compile_first_ms: Number(firstMs.toFixed(1)),
    compile_warm_ms: Number(warmMs.toFixed(2)),
    access_matrix_mix: access,
    access_one_allowed_request: owned,
    limit_checks: limits,
  }),
);

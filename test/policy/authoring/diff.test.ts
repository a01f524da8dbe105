/** policy:diff: every access and limit decision that differs between two policies, as Markdown tables. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../../src/package-dir.js';
import { callersFor, diffPolicies } from '../../../src/services/policy/authoring/diff.js';
import type { DiffSide } from '../../../src/services/policy/authoring/diff.js';
import { compilePolicyBytes } from '../../../src/services/policy/authoring/policy-file.js';
import { tempDir } from '../../helpers/temp.js';

const DEFAULT_POLICY = join(PKG_DIR, 'policy', 'default.json');
const EXAMPLE = join(PKG_DIR, 'examples', 'document-sharing', 'policy.json');
const dir = tempDir('diff');

function side(text: string): DiffSide {
  const compiled = compilePolicyBytes(Buffer.from(text));
  assert.ok(compiled.ok);
  return { doc: compiled.document, compiled: compiled.compiled };
}

function diffCli(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'policy-cli', 'diff-cli.ts'), ...args],
    { cwd: PKG_DIR, encoding: 'utf8', timeout: 60_000 },
  );
}

/** The default policy, changed: a deny rule, an allow rule for user 42, a JSON-Logic limit for staff. */
function changed(): string {
  const doc = JSON.parse(readFileSync(DEFAULT_POLICY, 'utf8')) as Record<string, unknown>;
  const rolePolicy = doc['role_policy'] as Record<string, { limits?: Record<string, unknown> }>;
  rolePolicy['staff']!.limits!['max_requests'] = { rule: { '<': [{ var: 'value' }, 500] } };
  doc['rules'] = [
    {
      effect: 'deny',
      roles: ['authenticated'],
      items: ['dataset'],
      actions: ['edit', 'delete'],
      when: { '!': { var: 'target.is_owner' } },
      reason: 'only owners change datasets',
    },
    {
      effect: 'allow',
      roles: ['authenticated'],
      items: ['dataset'],
      actions: ['view'],
      visibilities: ['private'],
      when: { '===': [{ var: 'user.id' }, 42] },
      reason: 'user 42 audits',
    },
  ];
  return JSON.stringify(doc, null, 2);
}

describe('policy:diff', () => {
  it('finds no difference between a policy and itself (exit 0)', () => {
    const result = diffCli(DEFAULT_POLICY, DEFAULT_POLICY);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^0 of 3920 access decisions and 0 of \d+ limit decisions differ\.$/m);
    assert.doesNotMatch(result.stdout, /\| role \|/);
  });

  it('lists every decision that differs as Markdown tables, saying what decides now (exit 1)', () => {
    const path = join(dir, 'changed.json');
    writeFileSync(path, changed());
    const result = diffCli(DEFAULT_POLICY, path);
    assert.equal(result.status, 1, result.stderr);
    const rows = result.stdout.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| role'));
    // Rows follow the documents' order: visibilities (private before shared here), then callers.
    assert.deepEqual(rows.slice(0, 3), [
      '| authenticated | dataset | private | user 42 | view | deny | **allow** | allowed-by-rule /rules/1 "user 42 audits" | relationship-gate |',
      '| authenticated | dataset | shared | shared (user 10 listed) | edit | allow | **deny** | denied-by-rule /rules/0 "only owners change datasets" | allowed-for-other /role_policy/authenticated/allowed_actions_for_other/shared, /item_policy/dataset/valid_role_actions |',
      '| authenticated | dataset | shared | everyone (user 2 listed) | edit | allow | **deny** | denied-by-rule /rules/0 "only owners change datasets" | allowed-for-other /role_policy/authenticated/allowed_actions_for_other/shared, /item_policy/dataset/valid_role_actions |',
    ]);
    assert.match(result.stdout, /^3 of \d+ access decisions and \d+ of \d+ limit decisions differ\.$/m);
    assert.match(
      result.stdout,
      /^\| staff \| max_requests \| 500 \| pass \| \*\*fail\*\* \| limit-failed: the role "staff" has max_requests as a rule, which the value 500 does not satisfy \|$/m,
    );
  });

  it('compares the callers each policy names: the standard four, and every user id a condition names', () => {
    const callers = callersFor([side(changed()).doc]).map((c) => c.label);
    assert.deepEqual(callers, ['owner', 'shared', 'everyone', 'other', 'user 42', 'owner 42', 'shared with 42']);
  });

  it('compares the default policy and the example over the union of their names', () => {
    const diff = diffPolicies(side(readFileSync(DEFAULT_POLICY, 'utf8')), side(readFileSync(EXAMPLE, 'utf8')));
    // 6 roles × 10 items × 10 actions × 5 visibilities × (4 + 3 for the user 1 a rule names) callers
    assert.equal(diff.compared.access, 6 * 10 * 10 * 5 * 7);
    assert.ok(diff.access.length > 0 && diff.limits.length > 0);
    assert.ok(diff.access.some((c) => c.after.explanation.check === 'allowed-by-rule'));
    assert.ok(diff.access.every((c) => c.before.allowed !== c.after.allowed));
  });

  it('exits 2 when a policy is invalid or missing, with its problems', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"roles": ["manage"]}');
    const result = diffCli(DEFAULT_POLICY, bad);
    assert.equal(result.status, 2);
    assert.match(
      result.stderr,
      /bad\.json is not a valid policy:\n(.*\n)* {2}- .*bad\.json:1:12: \/roles\/0: "manage" is a reserved name/,
    );
    assert.equal(diffCli(DEFAULT_POLICY, join(dir, 'missing.json')).status, 2);
    assert.equal(diffCli(DEFAULT_POLICY).status, 2);
  });
});

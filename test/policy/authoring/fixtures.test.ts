import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../../src/package-dir.js';
import { loadFixtureFile, parseFixture } from '../../../src/services/policy/authoring/fixture-load.js';
import { matrixSize, runFixture } from '../../../src/services/policy/authoring/fixture-run.js';
import { loadPolicyFile } from '../../../src/services/policy/load.js';
import { tempDir } from '../../helpers/temp.js';

const DEFAULT_POLICY = join(PKG_DIR, 'policy', 'default.json');
const FIXTURES = join(PKG_DIR, 'policy', 'fixtures');
const shipped = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => join(FIXTURES, f));
const dir = tempDir('fixtures');

function defaultPolicy() {
  const loaded = loadPolicyFile(DEFAULT_POLICY);
  assert.ok(loaded.ok);
  return loaded.policy.compiled;
}

function policyTest(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'policy-cli', 'fixtures-cli.ts'), ...args],
    { cwd: PKG_DIR, encoding: 'utf8', timeout: 60_000 },
  );
}

describe('the decision tables of the default policy', () => {
  it('all pass, and cover every cell of the access matrix (5 roles × 7 items × 7 actions × 4 visibilities × 3 relations)', () => {
    const policy = defaultPolicy();
    const covered = new Set<string>();
    let cases = 0;
    for (const path of shipped) {
      const fixture = loadFixtureFile(path);
      assert.ok(fixture.ok, `${path}: ${fixture.ok ? '' : fixture.problems.join('; ')}`);
      const run = runFixture(policy, fixture.fixture);
      assert.deepEqual(run.failures, [], path);
      cases += run.cases;
      run.covered.forEach((k) => covered.add(k));
    }
    assert.equal(matrixSize(policy), 2940);
    assert.equal(covered.size, 2940);
    assert.ok(cases > 2940);
  });

  it('are the matrix of reference §4.3, regenerated from its markdown table', (t) => {
    const reference = join(PKG_DIR, '..', 'shared', 'reference', 'authnzerver.md');
    if (!existsSync(reference)) {
      t.skip(`the reference is not beside the repository (${reference})`);
      return;
    }
    const out = mkdtempSync(join(dir, 'regenerated-'));
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'scripts', 'fixtures-from-reference.ts'), reference, out],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(result.status, 0, result.stderr);
    const generated = readdirSync(out).sort();
    assert.equal(generated.length, 5);
    for (const file of generated) {
      assert.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(FIXTURES, file), 'utf8'), file);
    }
  });
});

describe('npm run policy:test', () => {
  it('passes the shipped tables against the default policy (exit 0) and reports the coverage', () => {
    const result = policyTest(DEFAULT_POLICY, ...shipped);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(
      result.stdout,
      /^3\d{3} cases, 0 failed; the tables cover 2940 of the 2940 cells of the access matrix$/m,
    );
  });

  it('prints every failing case with the explanation of the decision taken, and exits 1', () => {
    const wrong = join(dir, 'wrong.json');
    writeFileSync(
      wrong,
      JSON.stringify({
        access: [
          { role: 'staff', item: 'object', visibility: 'private', relation: 'other', allow: ['list', 'view'] },
          {
            role: 'authenticated',
            item: 'dataset',
            visibility: 'public',
            relation: 'owner',
            action: 'edit',
            expect: 'allow',
            check: 'allowed-for-other',
          },
        ],
        limits: [{ role: 'locked', limit: 'max_requests', value: 0, expect: 'pass' }],
      }),
    );
    const result = policyTest(DEFAULT_POLICY, wrong);
    assert.equal(result.status, 1, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 4, result.stdout);
    assert.match(
      lines[0] ?? '',
      /^FAIL .*wrong\.json \/access\/0 staff object view private other: expected allow, got deny \(not-allowed-for-other: the role "staff" may not "view" other users' private items/,
    );
    assert.match(
      lines[1] ?? '',
      /\/access\/1 authenticated dataset edit public owner: expected allow by allowed-for-other, got allow \(allowed-for-owned: /,
    );
    assert.match(
      lines[2] ?? '',
      /\/limits\/0 locked max_requests 0: expected pass, got fail \(limit-failed: .*not 0 < 0\)$/,
    );
    assert.match(lines[3] ?? '', /^4 cases, 3 failed/);
  });

  it('exits 2 on an invalid policy, an unreadable table or missing arguments', () => {
    const badPolicy = join(dir, 'bad-policy.json');
    writeFileSync(badPolicy, '{"roles": ["manage"]}');
    const policy = policyTest(badPolicy, shipped[0] ?? '');
    assert.equal(policy.status, 2);
    assert.match(policy.stderr, /the policy is invalid:\n/);
    assert.match(policy.stderr, /\n {2}- .*bad-policy\.json:1:12: \/roles\/0: "manage" is a reserved name/);

    const badTable = join(dir, 'bad-table.json');
    writeFileSync(badTable, '{"access": [{"role": "staff"}]}');
    const table = policyTest(DEFAULT_POLICY, badTable, join(dir, 'missing.json'));
    assert.equal(table.status, 2);
    // Each problem with the line and column of the row at fault, as policy problems have.
    assert.match(
      table.stderr,
      /bad-table\.json: not a decision table:\n(.*\n)* {2}- 1:13: \/access\/0: lacks "item"\n/,
    );
    assert.match(
      table.stderr,
      /\n {2}- 1:13: \/access\/0: name the caller either by "relation" or by "user_id" and "owner" \(and optionally "shared_with"\), one way only\n/,
    );
    assert.match(table.stderr, /missing\.json: not a decision table:\n {2}- cannot read .*ENOENT/);

    const multiline = join(dir, 'multiline-table.json');
    writeFileSync(
      multiline,
      '{\n  "access": [\n    {"role": "staff", "item": "dataset", "visibility": "public",\n     "relation": "owner", "action": "view", "expect": "maybe"}\n  ]\n}\n',
    );
    const positioned = policyTest(DEFAULT_POLICY, multiline);
    assert.equal(positioned.status, 2);
    assert.match(positioned.stderr, /\n {2}- 4:45: \/access\/0\/expect: /);
    const notJson = join(dir, 'not-json-table.json');
    writeFileSync(notJson, '{\n  "access": [\n    {"role": "staff",}\n  ]\n}\n');
    const syntax = policyTest(DEFAULT_POLICY, notJson);
    assert.equal(syntax.status, 2);
    assert.match(syntax.stderr, /not-json-table\.json: not a decision table:\n {2}- 3:22: /);

    assert.equal(policyTest(DEFAULT_POLICY).status, 2);
  });

  it('refuses rows that mix the single-action and list forms, or name the caller twice', () => {
    const bad = [
      { role: 'a', item: 'b', visibility: 'c', relation: 'owner', action: 'x', expect: 'allow', allow: ['y'] },
      { role: 'a', item: 'b', visibility: 'c', relation: 'owner', allow: ['y'], expect: 'allow' },
      { role: 'a', item: 'b', visibility: 'c', relation: 'owner', user_id: 1, owner: 1, action: 'x', expect: 'deny' },
      { role: 'a', item: 'b', visibility: 'c', relation: 'owner', shared_with: '1', action: 'x', expect: 'deny' },
      { role: 'a', item: 'b', visibility: 'c', user_id: 1, action: 'x', expect: 'deny' },
      { role: 'a', item: 'b', visibility: 'c', relation: 'owner' },
      { role: 'a', item: 'b', visibility: 'c', relation: 'owner', action: 'x' },
    ];
    for (const row of bad) {
      assert.equal(parseFixture(Buffer.from(JSON.stringify({ access: [row] }))).ok, false, JSON.stringify(row));
    }
    const good = { role: 'a', item: 'b', visibility: 'c', user_id: 1, owner: 2, shared_with: '1, 2', deny: ['x'] };
    assert.equal(parseFixture(Buffer.from(JSON.stringify({ access: [good] }))).ok, true);
  });
});

/**
 * policy:lint: every problem, with its JSON pointer, line:column and a sentence. test/policy/broken/
 * holds one policy per kind of problem, each breaking test/policy/valid-small.json in one way.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../../src/package-dir.js';
import { lintFile, lintPolicyBytes } from '../../../src/services/policy/authoring/lint.js';
import { formatProblem } from '../../../src/services/policy/authoring/problems.js';
import { tempDir } from '../../helpers/temp.js';

const HERE = join(PKG_DIR, 'test', 'policy');
const BROKEN = join(HERE, 'broken');
const dir = tempDir('lint');

function lintCli(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'policy-cli', 'lint-cli.ts'), ...args],
    { cwd: PKG_DIR, encoding: 'utf8', timeout: 60_000 },
  );
}

/** file → `line:column: pointer: message` of each problem, in the order lint reports them. */
const EXPECTED: Readonly<Record<string, readonly string[]>> = {
  'syntax.json': ['15:5: /actions/0: not JSON: expected "," (or a closing bracket)'],
  'nesting.json': [
    `108:60: /rules/0/visibilities${'/0'.repeat(37)}: nests more than 40 levels deep here (too deep to read safely)`,
  ],
  'schema-type.json': ['13:3: /actions: must be an array, not "view"'],
  'unknown-key.json': ['90:7: /role_policy/locked/can_own: unknown key "can_own"'],
  'missing-key.json': ['28:5: /item_policy/doc: lacks "invalid_roles"'],
  'reserved-name.json': [
    '16:5: /actions/2: "manage" is a reserved name (CASL treats "manage" and "all" as wildcards that would grant everything)',
  ],
  'malformed-name.json': [
    '12:5: /items/1: "my doc" is not a valid name (1 to 64 letters, digits, _ - . or :, starting with a letter or digit)',
    '28:3: /item_policy: has no entry for the item "my doc"',
  ],
  'duplicate-name.json': ['16:5: /actions/2: lists "view" more than once'],
  'duplicate-key.json': [
    '91:5: /role_policy/locked: the key "locked" is written twice (first on line 43); JSON keeps only the last',
  ],
  'undeclared-name.json': ['100:9: /rules/0/items/1: "folder" is not an item declared in items'],
  'undeclared-limit-kind.json': [
    '60:11: /role_policy/authenticated/limits/max_requests/type: "maximum" is not a limit kind declared in limits',
  ],
  'required-role.json': ['4:3: /roles: lacks the required roles: locked (the fixed accounts and new users hold them)'],
  'missing-entry.json': ['28:3: /item_policy: has no entry for the item "folder"'],
  'fractional-limit.json': [
    '61:11: /role_policy/authenticated/limits/max_requests/limit: 10.5 is not a whole number, but the kind "max" is int',
  ],
  'mixed-limit.json': [
    '64:11: /role_policy/authenticated/limits/quota/type: is not allowed beside "rule": a limit is either {"type", "limit"} or {"rule"}',
  ],
  'rule-without-reason.json': ['93:5: /rules/0: lacks "reason"'],
  'never-matches.json': [
    '93:5: /rules/0: the rule can never match (the item_policy restrictions apply to rules): "doc" lists "locked" in its invalid_roles',
  ],
  'always-false.json': ['104:7: /rules/0/when: the rule can never match: its condition is always false'],
  'operator.json': [
    '105:9: /rules/0/when/==: "==" is not an operator of the rule language: loose equality ("1" == 1) is refused: use === (they are: and or ! !! if === !== < <= > >= in some all none var missing)',
  ],
  'variable.json': [
    '107:13: /rules/0/when/===/0/var: "user.email" is not a variable of access rules (they are: user.id, user.role, action, target.name, target.owner, target.visibility, target.sharedwith, target.is_owner, target.is_shared_with)',
  ],
  'limit-variable.json': [
    '67:17: /role_policy/authenticated/limits/quota/rule/</0/var: "target.owner" is not a variable of limit rules (they are: user.id, user.role, limit_name, value)',
  ],
  'strict-equality.json': [
    '105:9: /rules/0/when/===: === is never true: the variable "target.owner" and "10" are compared strictly, and a number never equals a string',
  ],
  'comparison-type.json': [
    '106:11: /rules/0/when/</0: < compares numbers only, and the variable "target.visibility" is a string',
  ],
  'condition-depth.json': [`120:39: /rules/0/when${'/!'.repeat(16)}: the condition nests operations more than 16 deep`],
  'condition-size.json': ['104:7: /rules/0/when: the condition has more than 256 nodes'],
};

describe('policy:lint on test/policy/broken/, one policy per kind of problem', () => {
  it('has an expectation for every file, and the base policy is clean', () => {
    const files = readdirSync(BROKEN).filter((f) => f.endsWith('.json'));
    assert.deepEqual(files.sort(), Object.keys(EXPECTED).sort());
    assert.deepEqual(lintPolicyBytes(readFileSync(join(HERE, 'valid-small.json'))).problems, []);
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`reports ${file.replace(/\.json$/, '')} with its pointer, position and message`, () => {
      const outcome = lintFile(join(BROKEN, file));
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.problems.map(formatProblem), expected);
    });
  }
});

describe('policy:lint', () => {
  it('reports every problem in one run: schema and semantic ones together, sorted by position', () => {
    const doc = JSON.parse(readFileSync(join(HERE, 'valid-small.json'), 'utf8')) as Record<string, unknown>;
    doc['actions'] = ['view', 'edit', 'manage'];
    (doc['item_policy'] as Record<string, Record<string, unknown>>)['doc']!['invalid_roles'] = ['ghost'];
    (doc['rules'] as Array<Record<string, unknown>>)[0]!['when'] = { '==': [1, 1] };
    doc['extra'] = true;
    const problems = lintPolicyBytes(Buffer.from(JSON.stringify(doc, null, 2))).problems;
    assert.deepEqual(
      problems.map((p) => [p.line, p.kind, p.pointer]),
      [
        [16, 'reserved-name', '/actions/2'],
        [39, 'reference', '/item_policy/doc/invalid_roles/0'],
        [106, 'operator', '/rules/0/when/=='],
        [114, 'schema', '/extra'],
      ],
    );
  });

  it('prints FILE:LINE:COLUMN: POINTER: MESSAGE and exits 1 on problems, 0 when clean', () => {
    const broken = lintCli(join(BROKEN, 'reserved-name.json'), join(HERE, 'valid-small.json'));
    assert.equal(broken.status, 1, broken.stderr);
    assert.equal(
      broken.stdout,
      [
        `${join(BROKEN, 'reserved-name.json')}:16:5: /actions/2: "manage" is a reserved name (CASL treats "manage" and "all" as wildcards that would grant everything)`,
        `${join(BROKEN, 'reserved-name.json')}: 1 problem`,
        `${join(HERE, 'valid-small.json')}: no problems`,
        '',
      ].join('\n'),
    );
    const clean = lintCli(join(PKG_DIR, 'policy', 'default.json'));
    assert.equal(clean.status, 0, clean.stdout + clean.stderr);
  });

  it('--format json gives each problem as an object', () => {
    const result = lintCli('--format', 'json', join(BROKEN, 'variable.json'));
    assert.equal(result.status, 1);
    assert.deepEqual(JSON.parse(result.stdout), [
      {
        file: join(BROKEN, 'variable.json'),
        problems: [
          {
            line: 107,
            column: 13,
            pointer: '/rules/0/when/===/0/var',
            kind: 'variable',
            message:
              '"user.email" is not a variable of access rules (they are: user.id, user.role, action, target.name, target.owner, target.visibility, target.sharedwith, target.is_owner, target.is_shared_with)',
          },
        ],
      },
    ]);
  });

  it('exits 2 on a file it cannot read or a wrong command line', () => {
    const missing = lintCli(join(dir, 'missing.json'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read .*missing\.json \(ENOENT\)/);
    assert.equal(lintCli().status, 2);
    assert.equal(lintCli('--format', 'yaml', join(HERE, 'valid-small.json')).status, 2);
    assert.equal(lintCli('--fix', join(HERE, 'valid-small.json')).status, 2);
  });

  it('refuses a file over 1 MiB without reading it, and a deep one without recursing', () => {
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, Buffer.alloc(2 * 1024 * 1024, 0x20));
    const outcome = lintFile(huge);
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.problems.map(formatProblem), [
      '1:1: the policy is 2097152 bytes, more than the 1048576 allowed',
    ]);
    const deep = lintPolicyBytes(Buffer.from(`{"rules": [${'{"!": '.repeat(100_000)}true${'}'.repeat(100_000)}]}`));
    assert.equal(deep.problems.length, 1);
    assert.equal(deep.problems[0]?.kind, 'nesting');
  });

  it('counts columns in characters, not UTF-16 units', () => {
    const problems = lintPolicyBytes(Buffer.from('{"description": "😀 é", "roles": 1}')).problems;
    const roles = problems.find((p) => p.pointer === '/roles');
    // `{"description": "😀 é", ` is 23 characters (24 UTF-16 units).
    assert.deepEqual([roles?.line, roles?.column], [1, 24]);
  });

  it('is, like policy:diff and policy:test, an npm script that runs from dist', () => {
    const scripts = (
      JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    for (const [name, cli] of [
      ['policy:lint', 'lint-cli'],
      ['policy:diff', 'diff-cli'],
      ['policy:test', 'fixtures-cli'],
    ] as const) {
      assert.equal(scripts[name], `node dist/policy-cli/${cli}.js`);
      assert.ok(existsSync(join(PKG_DIR, 'src', 'policy-cli', `${cli}.ts`)), cli);
    }
  });

  it('finds nothing in the shipped and the example policies', () => {
    for (const path of ['policy/default.json', 'examples/document-sharing/policy.json']) {
      const outcome = lintFile(join(PKG_DIR, path));
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.problems.map(formatProblem), [], path);
    }
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { checkAccess } from '../../src/services/policy/engine/check-access.js';
import { compilePolicyBytes } from '../../src/services/policy/authoring/policy-file.js';
import { loadPolicyFile } from '../../src/services/policy/load.js';
import { describeProblem } from '../../src/services/policy/authoring/problems.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { tempDir } from '../helpers/temp.js';
import { childEnv } from '../helpers/child-env.js';

const DEFAULT_POLICY = join(PKG_DIR, 'policy', 'default.json');
const defaultText = readFileSync(DEFAULT_POLICY, 'utf8');
const dir = tempDir('policy');

type Policy = Record<string, unknown> & {
  roles: string[];
  items: string[];
  actions: string[];
  visibilities: string[];
  limits: Record<string, unknown>;
  item_policy: Record<string, Record<string, unknown>>;
  role_policy: Record<string, Record<string, unknown>>;
};
const fresh = (): Policy => JSON.parse(defaultText) as Policy;

function problemsOf(policy: unknown): string[] {
  const text = typeof policy === 'string' ? policy : JSON.stringify(policy);
  const result = compilePolicyBytes(Buffer.from(text));
  assert.equal(result.ok, false, 'the policy should be refused');
  return result.ok ? [] : result.problems.map(describeProblem);
}

function assertProblem(policy: unknown, expected: RegExp): void {
  const problems = problemsOf(policy);
  assert.ok(
    problems.some((p) => expected.test(p)),
    `${expected} not among:\n${problems.join('\n')}`,
  );
}

describe('loading the default policy', () => {
  it('validates and compiles policy/default.json, the reference policy plus $schema', () => {
    const loaded = loadPolicyFile(DEFAULT_POLICY);
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.problems.join('\n'));
    const { compiled } = loaded.policy;
    assert.deepEqual([...compiled.roles], ['superuser', 'staff', 'authenticated', 'anonymous', 'locked']);
    assert.equal(compiled.items.size, 7);
    assert.equal(compiled.actions.size, 7);
    assert.equal(compiled.visibilities.size, 4);
    assert.equal(compiled.sha256, createHash('sha256').update(readFileSync(DEFAULT_POLICY)).digest('hex'));
    assert.ok([...compiled.abilities.values()].every((a) => a.rules.length >= 0));
    assert.equal(compiled.abilities.get('locked')?.rules.length, 0, 'locked can do nothing');
  });

  it('keeps every lookup in Maps: a policy of roles and items named after Object.prototype works', () => {
    const policy = fresh();
    policy.roles.push('constructor');
    policy.items.push('toString');
    policy.actions.push('hasOwnProperty');
    policy.item_policy['toString'] = {
      valid_role_actions: ['hasOwnProperty'],
      valid_visibilities: ['public'],
      invalid_roles: [],
    };
    policy.role_policy['constructor'] = {
      can_own_items: ['toString'],
      allowed_actions_for_owned: ['hasOwnProperty'],
      allowed_actions_for_other: {},
    };
    const result = compilePolicyBytes(Buffer.from(JSON.stringify(policy)));
    assert.ok(result.ok, result.ok ? '' : result.problems.map(describeProblem).join('\n'));
    const ask = (role: string, userId: number) =>
      checkAccess(result.compiled, {
        userId,
        owner: 10,
        role,
        item: 'toString',
        action: 'hasOwnProperty',
        visibility: 'public',
        sharedWith: [],
      });
    assert.equal(ask('constructor', 10).allowed, true);
    assert.equal(ask('constructor', 11).allowed, false);
    assert.equal(ask('authenticated', 10).allowed, false);
  });

  it('accepts a UTF-8 byte order mark', () => {
    assert.equal(compilePolicyBytes(Buffer.from(`\ufeff${defaultText}`)).ok, true);
  });
});

describe('policy-schema/policy.schema.json', () => {
  it('describes every property, so editors can explain the policy', () => {
    const schema = JSON.parse(readFileSync(join(PKG_DIR, 'policy-schema', 'policy.schema.json'), 'utf8')) as object;
    const fixture = JSON.parse(readFileSync(join(PKG_DIR, 'policy-schema', 'fixture.schema.json'), 'utf8')) as object;
    const undescribed: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      for (const key of ['properties', 'definitions']) {
        const children = record[key];
        if (children === undefined) continue;
        for (const [name, child] of Object.entries(children as Record<string, Record<string, unknown>>)) {
          if (typeof child['description'] !== 'string') {
            undescribed.push(`${path}/${key}/${name}`);
          }
          walk(child, `${path}/${key}/${name}`);
        }
      }
    };
    walk(schema, 'policy');
    walk(fixture, 'fixture');
    assert.deepEqual(undescribed, []);
    assert.equal(fresh()['$schema'], '../policy-schema/policy.schema.json');
  });
});

describe('refusing a policy', () => {
  it('that is not JSON, empty, not UTF-8, or not an object', () => {
    assertProblem('{"roles": [', /^\/roles\/0: not JSON: /);
    assertProblem('', /^the policy is empty$/);
    assertProblem(' \n\t ', /^the policy is empty$/);
    assert.deepEqual(
      problemsOf(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('latin1')),
      problemsOf('{\u00ff\u00fe}'),
    );
    const bad = compilePolicyBytes(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    assert.ok(!bad.ok);
    assert.deepEqual(bad.problems, [
      { pointer: '', kind: 'file', message: 'the policy is not UTF-8 text', line: 1, column: 1 },
    ]);
    assertProblem('[]', /^the policy must be an object, not \[\]$/);
    assertProblem('null', /^the policy must be an object, not null$/);
    assertProblem('"roles"', /^the policy must be an object/);
  });

  it('of 10 MB, before parsing it', () => {
    const huge = Buffer.alloc(10 * 1024 * 1024, 0x20);
    huge.write('{"roles": []', 0);
    huge.write('}', huge.length - 1);
    const refused = compilePolicyBytes(huge);
    assert.ok(!refused.ok);
    assert.deepEqual(refused.problems.map(describeProblem), [
      'the policy is 10485760 bytes, more than the 1048576 allowed',
    ]);
    const path = join(dir, 'huge.json');
    writeFileSync(path, huge);
    const loaded = loadPolicyFile(path);
    assert.equal(loaded.ok, false);
    assert.match(loaded.ok ? '' : (loaded.problems[0] ?? ''), /huge\.json: the policy is 10485760 bytes, more than/);
  });

  it('nested deeply, without recursing (brackets inside strings do not count)', () => {
    for (const depth of [40, 1000, 200_000]) {
      const deep = `{"roles": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const refused = compilePolicyBytes(Buffer.from(deep));
      assert.ok(!refused.ok);
      assert.deepEqual(
        refused.problems,
        [
          {
            pointer: `/roles${'/0'.repeat(39)}`,
            kind: 'nesting',
            message: 'nests more than 40 levels deep here (too deep to read safely)',
            line: 1,
            column: 50,
          },
        ],
        String(depth),
      );
    }
    const policy = fresh();
    policy['description'] = '[['.repeat(1000);
    assert.equal(compilePolicyBytes(Buffer.from(JSON.stringify(policy))).ok, true);
  });

  it('naming a role, item, action, visibility or limit "manage" or "all" (CASL wildcards, docs/design.md#casl-reserved-words)', () => {
    const reserved = /is a reserved name \(CASL treats "manage" and "all" as wildcards/;
    for (const list of ['roles', 'items', 'actions', 'visibilities'] as const) {
      for (const name of ['manage', 'all']) {
        const policy = fresh();
        policy[list].push(name);
        assertProblem(policy, new RegExp(`^/${list}/\\d: "${name}" ${reserved.source}`));
      }
    }
    const policy = fresh();
    (policy.role_policy['staff']?.['limits'] as Record<string, unknown>)['all'] = { type: 'max', limit: 1 };
    assertProblem(policy, /^\/role_policy\/staff\/limits\/all: the key "all" is not a valid name$/);
  });

  it('with malformed names or keys', () => {
    for (const name of ['', 'bad name', 'x'.repeat(65), 'nul\u0000', '_private', 'é']) {
      const policy = fresh();
      policy.items.push(name);
      assertProblem(policy, /^\/items\/7: .* is not a valid name \(1 to 64 letters/);
    }
    assertProblem(
      `{"role_policy": {"__proto__": {}}, "roles": [], "items": [], "actions": [], "visibilities": [], "limits": {}, "item_policy": {}}`,
      /^\/role_policy\/__proto__: the key "__proto__" is not a valid name$/,
    );
  });

  it('with duplicates, wrong types or unknown keys', () => {
    const dup = fresh();
    dup.actions.push('view');
    assertProblem(dup, /^\/actions\/7: lists "view" more than once$/);
    const type = fresh();
    type['limits'] = { max: { type: 'decimal', operator: 'lt' } };
    assertProblem(type, /^\/limits\/max\/type: must be one of "int", "float", not "decimal"$/);
    const extra = fresh();
    (extra.role_policy['staff'] as Record<string, unknown>)['can_own'] = [];
    assertProblem(extra, /^\/role_policy\/staff\/can_own: unknown key "can_own"$/);
    const missing = fresh();
    delete (missing.item_policy['user'] as Record<string, unknown>)['invalid_roles'];
    assertProblem(missing, /^\/item_policy\/user: lacks "invalid_roles"$/);
  });

  it('without the required roles superuser, authenticated, anonymous and locked', () => {
    const policy = fresh();
    policy.roles = ['superuser', 'staff'];
    policy.role_policy = { superuser: policy.role_policy['superuser']!, staff: policy.role_policy['staff']! };
    for (const item of Object.values(policy.item_policy)) item['invalid_roles'] = [];
    assert.deepEqual(problemsOf(policy), [
      '/roles: lacks the required roles: authenticated, anonymous, locked (the fixed accounts and new users hold them)',
    ]);
  });

  it('referring to roles, items, actions, visibilities or limit kinds it does not declare', () => {
    const policy = fresh();
    policy.item_policy['object'] = {
      valid_role_actions: ['view', 'share'],
      valid_visibilities: ['public', 'team'],
      invalid_roles: ['guest'],
    };
    policy.item_policy['widget'] = { valid_role_actions: [], valid_visibilities: [], invalid_roles: [] };
    policy.role_policy['staff'] = {
      limits: { quota: { type: 'maximum', limit: 3 } },
      can_own_items: ['gadget'],
      allowed_actions_for_owned: ['fly'],
      allowed_actions_for_other: { team: ['view'], public: ['swim'] },
    };
    policy.role_policy['guest'] = { can_own_items: [], allowed_actions_for_owned: [], allowed_actions_for_other: {} };
    policy.items.push('orphan');
    policy.roles.push('nobody');
    // Sorted by position (here all on the one line JSON.stringify writes).
    assert.deepEqual(problemsOf(policy), [
      '/item_policy: has no entry for the item "orphan"',
      '/item_policy/object/valid_role_actions/1: "share" is not an action declared in actions',
      '/item_policy/object/valid_visibilities/1: "team" is not a visibility declared in visibilities',
      '/item_policy/object/invalid_roles/0: "guest" is not a role declared in roles',
      '/item_policy/widget: "widget" is not an item declared in items',
      '/role_policy: has no entry for the role "nobody"',
      '/role_policy/staff/limits/quota/type: "maximum" is not a limit kind declared in limits',
      '/role_policy/staff/can_own_items/0: "gadget" is not an item declared in items',
      '/role_policy/staff/allowed_actions_for_owned/0: "fly" is not an action declared in actions',
      '/role_policy/staff/allowed_actions_for_other/team: "team" is not a visibility declared in visibilities',
      '/role_policy/staff/allowed_actions_for_other/public/0: "swim" is not an action declared in actions',
      '/role_policy/guest: "guest" is not a role declared in roles',
    ]);
  });

  it('with a fractional limit of an int kind', () => {
    const policy = fresh();
    (policy.role_policy['staff']?.['limits'] as Record<string, { limit: number }>)['max_requests']!.limit = 10.5;
    assert.deepEqual(problemsOf(policy), [
      '/role_policy/staff/limits/max_requests/limit: 10.5 is not a whole number, but the kind "max" is int',
    ]);
  });

  it('stops start-up with exit code 2 and the list of problems', () => {
    const path = join(dir, 'broken.json');
    const policy = fresh();
    policy.actions.push('manage');
    policy.items.push('orphan');
    writeFileSync(path, JSON.stringify(policy));
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'bin.ts')],
      {
        cwd: dir,
        env: childEnv({
          AUTHSVC_SECRET: generateFernetKey(),
          AUTHSVC_PIISALT: 'pepper-pepper',
          AUTHSVC_AUTHDB: 'sqlite:///never.sqlite',
          AUTHSVC_BASEDIR: dir,
          AUTHSVC_PERMISSIONS: path,
        }),
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    assert.equal(result.status, 2, result.stderr);
    assert.match(
      result.stderr,
      /^authsvc: cannot start:\n {2}- permissions \(--permissions, AUTHSVC_PERMISSIONS\): .*broken\.json:1:\d+: \/actions\/7: "manage" is a reserved name/,
    );
  });
});

/**
 * Hostile strings in every string item of the account-administration actions, on all three databases:
 * SQL and JSON injection, LIKE wildcards, confusable and invisible Unicode, 10 kB strings, poisoned
 * keys. Each is refused (or, for a lookup, finds nothing) with a failure_reason of the catalogue and an
 * end-user message that does not echo it; nothing changes in the database, nothing answers 500 and
 * nothing is logged as an error.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { failures } from '../../src/domain/errors.js';
import type { ActionName } from '../../src/protocol/index.js';
import { openSession } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer, testHasher } from '../helpers/server.js';
import { CREDENTIAL_CHECK_COLUMNS } from '../helpers/refusals.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';

const HOSTILE: readonly string[] = [
  "' OR '1'='1",
  "user4@example.org'; DROP TABLE users; --",
  '" OR ""="',
  '\\',
  '%',
  '_%@%',
  '*',
  '{"$ne": null}',
  '{"__proto__": {"admin": true}}',
  '[]',
  'null',
  'superuser\u200b',
  'аdmin@example.org', // Cyrillic а
  'user4@exаmple.org', // Cyrillic а in the domain
  'user4@example.org\u202e',
  'SUPERUSER',
  'x'.repeat(10_240),
  'ü'.repeat(5_000),
  '🙂'.repeat(3_000),
];

const REASONS: ReadonlySet<string> = new Set(Object.values(failures).map((f) => f.reason));

/** Sets `value` at a dotted path of a copy of `body` (`update_dict.email`; `update_dict.*key` names a key). */
function withValue(body: Record<string, unknown>, path: string, value: string): Record<string, unknown> {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) return { ...body, [head]: value };
  const inner = body[head] as Record<string, unknown>;
  return { ...body, [head]: tail === '*key' ? { [value]: 'x' } : { ...inner, [tail]: value } };
}

forEachDatabase((db) => {
  let server: TestServer;
  let own: string;
  let admin: string;
  before(async () => {
    server = await startTestServer({ database: db });
    await insertUsers(server.app.store, [
      { userId: 4, role: 'authenticated', passwordHash: await testHasher.hash('the right password') },
      { userId: 5, role: 'authenticated' },
    ]);
    own = await openSession(server, 4);
    admin = await openSession(server, 1);
  });
  after(async () => {
    assert.deepEqual(
      server.logs.filter((l) => l.level === 'error'),
      [],
    );
    assert.deepEqual(
      server.logs.filter((l) => l['status'] === 500),
      [],
    );
    await server.close();
  });

  const sweeps = (): Array<[ActionName, Record<string, unknown>, readonly string[]]> => [
    ['user-lookup-email', { email: 'user4@example.org' }, ['email']],
    ['user-lookup-match', { by: 'email', match: 'user4@example.org' }, ['by', 'match']],
    ['user-lookup-match', { by: 'system_id', match: 'x' }, ['match']],
    ['user-lookup-match', { by: 'user_role', match: 'x' }, ['match']],
    ['user-lookup-match', { by: 'full_name', match: 'x' }, ['match']],
    ['user-lookup-match', { by: 'created_on', match: 'x' }, ['match']],
    [
      'user-edit',
      { user_id: 4, user_role: 'authenticated', session_token: own, target_userid: 4, update_dict: { email: 'x' } },
      ['user_role', 'session_token', 'update_dict.email', 'update_dict.*key'],
    ],
    [
      'user-edit',
      { user_id: 1, user_role: 'superuser', session_token: admin, target_userid: 5, update_dict: { user_role: 'x' } },
      ['update_dict.user_role'],
    ],
    [
      'user-lock',
      { user_id: 1, user_role: 'superuser', session_token: 'x', target_userid: 5, action: 'lock' },
      ['user_role', 'session_token', 'action'],
    ],
    [
      'user-delete',
      { email: 'user4@example.org', user_id: 4, password: 'a wrong password' },
      ['email', 'password', 'session_token'],
    ],
    [
      'internal-user-edit',
      { target_userid: 5, update_dict: { email: 'x' } },
      ['update_dict.email', 'update_dict.user_role', 'update_dict.*key'],
    ],
    ['user-set-emailverified', { email: 'nobody@example.org' }, ['email']],
    ['user-set-emailsent', { email: 'nobody@example.org', email_type: 'signup' }, ['email', 'email_type']],
  ];

  it('refuses every hostile string in every string item, changing nothing', async () => {
    // A hostile password is a failed password check, counted by design (docs/design.md#one-credential-check):
    // nothing else may change.
    const digest = await server.digest(CREDENTIAL_CHECK_COLUMNS);
    let sent = 0;
    for (const [action, body, paths] of sweeps()) {
      for (const path of paths) {
        for (const hostile of HOSTILE) {
          const label = `${action} ${path} = ${JSON.stringify(hostile.slice(0, 30))}`;
          const reply = await server.call(action, withValue(body, path, hostile));
          sent++;
          if (reply.success) {
            assert.ok(action.startsWith('user-lookup-match'), `only a lookup may succeed: ${label}`);
            assert.deepEqual((reply.response as { user_info?: unknown }).user_info, [], label);
            continue;
          }
          assert.ok(REASONS.has(reply.failure_reason), `${label}: ${reply.failure_reason}`);
          assert.ok(reply.messages.length > 0, label);
          for (const message of reply.messages) assert.ok(!message.includes(hostile), `${label} echoed`);
        }
      }
    }
    assert.ok(sent > 400, `sent ${sent}`);
    assert.equal(await server.digest(CREDENTIAL_CHECK_COLUMNS), digest);
  });

  it('refuses poisoned update_dict keys at any depth', async () => {
    const digest = await server.digest();
    for (const text of [
      '{"__proto__": {"user_role": "superuser"}}',
      '{"constructor": {"prototype": {"admin": true}}}',
      '{"extra_info": {"a": {"__proto__": 1}}}',
      '{"prototype": 1}',
    ]) {
      for (const action of ['internal-user-edit', 'user-edit'] as const) {
        const reply = await server.call(action, {
          user_id: 1,
          user_role: 'superuser',
          session_token: admin,
          target_userid: 5,
          update_dict: JSON.parse(text) as unknown,
        });
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', `${action} ${text}`);
      }
    }
    assert.equal(({} as Record<string, unknown>)['admin'], undefined);
    assert.equal(({} as Record<string, unknown>)['user_role'], undefined);
    assert.equal(await server.digest(), digest);
  });
});

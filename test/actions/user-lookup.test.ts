import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { timeToDb } from '../../src/services/store/dialect.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';
import { sqlOf } from '../helpers/sql.js';

const USER_INFO_KEYS = [
  'created_on',
  'email',
  'email_verified',
  'emailchangepass_sent_datetime',
  'emailforgotpass_sent_datetime',
  'emailverify_sent_datetime',
  'extra_info',
  'failed_login_tries',
  'full_name',
  'is_active',
  'last_login_success',
  'last_login_try',
  'last_updated',
  'system_id',
  'user_id',
  'user_role',
];

type Info = { user_id: number; email: string; system_id: string; [key: string]: unknown };
const ids = (list: unknown): number[] => ((list ?? []) as Info[]).map((u) => u.user_id);
const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');

/** Users 10…1109: the bulk that paging and the result bound need. */
const BULK_FIRST = 10;
const BULK = 1100;
const CREATED = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: db });
    const store = server.app.store;
    await insertUsers(
      store,
      [
        { userId: 4, role: 'authenticated', email: 'jane@example.org', fullName: 'Jane Doe', extraInfo: { n: 1 } },
        { userId: 5, role: 'staff', extraInfo: { n: '1', tags: ['a', 'b'], org: { name: 'Acme', size: 3 } } },
        { userId: 6, role: 'authenticated', active: false, extraInfo: { n: true, tags: ['b', 'a'] } },
        { userId: 7, role: 'locked', active: false, verified: false, extraInfo: { org: { size: 3, name: 'Acme' } } },
        { userId: 8, role: 'authenticated', fullName: 'Robert"); DROP TABLE users;--', extraInfo: { n: 1.5 } },
      ],
      CREATED,
    );
    await sqlOf(store)('users').where('user_id', 8).update({ extra_info: null });
    await sqlOf(store)('users')
      .where('user_id', 4)
      .update({
        last_login_try: timeToDb(store.dialect, CREATED + 1),
        last_login_success: timeToDb(store.dialect, CREATED + 1),
      });
    for (let from = 0; from < BULK; from += 250) {
      await insertUsers(
        store,
        Array.from({ length: Math.min(250, BULK - from) }, (_, i) => ({
          userId: BULK_FIRST + from + i,
          role: 'authenticated',
          extraInfo: { bulk: true, parity: (from + i) % 2 },
        })),
        CREATED + 1000,
      );
    }
  });
  after(() => server.close());

  describe('user-list', () => {
    it('lists all users ordered by user_id, 1,000 per page, with the 16 user-info keys and no password', async () => {
      const first = await server.call('user-list', { user_id: null });
      assert.equal(first.success, true);
      assert.deepEqual(first.messages, ['User look up successful.']);
      const page = first.success ? first.response : null;
      assert.ok(page);
      assert.equal(page.user_info?.length, 1000);
      assert.equal(page.has_more, true);
      assert.deepEqual(ids(page.user_info).slice(0, 9), [1, 2, 3, 4, 5, 6, 7, 8, 10]);
      const listed = ids(page.user_info);
      assert.deepEqual(
        listed,
        [...listed].sort((a, b) => a - b),
      );
      for (const info of page.user_info ?? []) assert.deepEqual(Object.keys(info).sort(), USER_INFO_KEYS);
      assert.ok(!JSON.stringify(page).includes('password'));

      const last = listed.at(-1)!;
      const second = await server.call('user-list', { user_id: null, after_user_id: last });
      assert.equal(second.success, true);
      const rest = second.success ? second.response : null;
      assert.equal(rest?.has_more, false);
      assert.equal(rest?.user_info?.length, 8 + BULK - 1000);
      assert.equal(ids(rest?.user_info)[0], last + 1);
      assert.equal(ids(rest?.user_info).at(-1), BULK_FIRST + BULK - 1);

      const beyond = await server.call('user-list', { user_id: null, after_user_id: 2_000_000 });
      assert.deepEqual(beyond.success && beyond.response, { user_info: [], has_more: false });
    });

    it('formats every field of one user', async () => {
      const reply = await server.call('user-list', { user_id: 4 });
      assert.equal(reply.success, true);
      const [info] = (reply.success ? reply.response.user_info : null) ?? [];
      assert.deepEqual(
        { ...info, system_id: typeof info?.system_id },
        {
          user_id: 4,
          system_id: 'string',
          full_name: 'Jane Doe',
          email: 'jane@example.org',
          email_verified: true,
          is_active: true,
          user_role: 'authenticated',
          extra_info: { n: 1 },
          created_on: iso(CREATED),
          last_updated: iso(CREATED),
          last_login_try: iso(CREATED + 1),
          last_login_success: iso(CREATED + 1),
          failed_login_tries: 0,
          emailverify_sent_datetime: null,
          emailforgotpass_sent_datetime: null,
          emailchangepass_sent_datetime: null,
        },
      );
      assert.equal(reply.success && reply.response.has_more, false);
    });

    it('fails for a user that does not exist', async () => {
      const reply = await server.call('user-list', { user_id: 999_999 });
      assert.equal(reply.success, false);
      assert.equal(!reply.success && reply.failure_reason, 'user does not exist');
      assert.deepEqual(reply.messages, ['User look up failed.']);
      assert.equal(reply.response.user_info, null);
    });

    it('refuses a missing or mistyped user_id and a bad after_user_id', async () => {
      for (const body of [{}, { user_id: '1' }, { user_id: 0 }, { user_id: null, after_user_id: -1 }]) {
        const reply = await server.call('user-list', body);
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(body));
      }
    });
  });

  describe('user-lookup-email', () => {
    it('finds a user by email, case-insensitively and after NFKC', async () => {
      for (const email of ['jane@example.org', 'JANE@Example.ORG', 'ｊａｎｅ@example.org', '  jane@example.org ']) {
        const reply = await server.call('user-lookup-email', { email });
        assert.equal(reply.success, true, email);
        assert.equal(reply.success && reply.response.user_info?.user_id, 4);
        assert.deepEqual(Object.keys((reply.success && reply.response.user_info) || {}).sort(), USER_INFO_KEYS);
      }
    });

    it('finds nothing for look-alikes, padding inside, injections and long strings, changing nothing', async () => {
      const digest = await server.digest();
      for (const email of [
        'jаne@example.org', // Cyrillic а
        'jane@example.org\u200b',
        'jane @example.org',
        "jane@example.org' OR '1'='1",
        '" OR 1=1 --',
        '{"$ne": null}',
        '%',
        'x'.repeat(280),
      ]) {
        const reply = await server.call('user-lookup-email', { email });
        assert.equal(reply.success, false, email);
        assert.equal(!reply.success && reply.failure_reason, 'user does not exist');
        assert.deepEqual(reply.messages, ['User look up failed.']);
      }
      const long = await server.call('user-lookup-email', { email: 'x'.repeat(10_000) });
      assert.equal(!long.success && long.failure_reason, 'invalid request parameters');
      assert.equal(await server.digest(), digest);
    });
  });

  describe('user-lookup-match', () => {
    const match = async (by: string, value: unknown, after?: number): Promise<number[]> => {
      const reply = await server.call('user-lookup-match', {
        by,
        match: value,
        ...(after === undefined ? {} : { after_user_id: after }),
      });
      assert.equal(reply.success, true, `${by} ${JSON.stringify(value)}: ${JSON.stringify(reply)}`);
      return ids(reply.success ? reply.response.user_info : []);
    };
    const systemId = async (userId: number): Promise<string> => {
      const row: { system_id: string } = await sqlOf(server.app.store)('users')
        .where('user_id', userId)
        .first('system_id');
      return row.system_id;
    };

    it('matches each column by its type', async () => {
      assert.deepEqual(await match('user_id', 5), [5]);
      assert.deepEqual(await match('system_id', await systemId(5)), [5]);
      assert.deepEqual(await match('full_name', '  Jane \t Doe '), [4], 'normalised as stored');
      assert.deepEqual(await match('full_name', 'Robert"); DROP TABLE users;--'), [8]);
      assert.deepEqual(await match('email', 'JANE@example.org'), [4]);
      assert.deepEqual(await match('is_active', false), [3, 6, 7]);
      assert.deepEqual(await match('user_role', 'staff'), [5]);
      assert.deepEqual(await match('created_on', iso(CREATED)), [4, 5, 6, 7, 8]);
      assert.deepEqual(await match('created_on', '2026-01-02T05:04:05.678+02:00'), [4, 5, 6, 7, 8], 'any offset');
      assert.deepEqual(await match('last_login_try', iso(CREATED + 1)), [4]);
      assert.deepEqual(await match('last_login_success', '2026-01-02T03:04:05.679'), [4], 'naive means UTC');
      const never = await match('last_login_try', null);
      assert.ok(!never.includes(4) && never.includes(5), 'null matches users who never tried');
    });

    it('compares strings byte for byte: no case folding, trailing spaces or collation tricks', async () => {
      assert.deepEqual(await match('user_role', 'STAFF'), []);
      assert.deepEqual(await match('user_role', 'staff '), []);
      assert.deepEqual(await match('system_id', `${await systemId(5)} `), []);
      assert.deepEqual(await match('system_id', (await systemId(5)).toUpperCase()), []);
      assert.deepEqual(await match('user_role', "staff' OR '1'='1"), []);
    });

    it('matches extra_info by every given top-level key with a deep-equal value, types kept apart', async () => {
      assert.deepEqual(await match('extra_info', { n: 1 }), [4]);
      assert.deepEqual(await match('extra_info', { n: '1' }), [5]);
      assert.deepEqual(await match('extra_info', { n: true }), [6]);
      assert.deepEqual(await match('extra_info', { n: 1.5 }), [], 'user 8 has no extra_info at all');
      assert.deepEqual(await match('extra_info', { tags: ['a', 'b'] }), [5], 'arrays in order');
      assert.deepEqual(await match('extra_info', { org: { name: 'Acme', size: 3 } }), [5, 7], 'objects in any order');
      assert.deepEqual(await match('extra_info', { org: { name: 'Acme' } }), [], 'nested objects whole');
      assert.deepEqual(await match('extra_info', { n: '1', tags: ['a', 'b'] }), [5]);
      assert.deepEqual(await match('extra_info', { n: 1, tags: ['a', 'b'] }), []);
      assert.deepEqual(await match('extra_info', { provenance: 'auto-created' }), [1, 2, 3]);
      assert.deepEqual(await match('extra_info', { missing: null }), []);
    });

    it('bounds the answer at 1,000 users and pages on with after_user_id', async () => {
      const reply = await server.call('user-lookup-match', { by: 'extra_info', match: { bulk: true } });
      assert.equal(reply.success, true);
      const first = reply.success ? reply.response : null;
      assert.equal(first?.user_info?.length, 1000);
      assert.equal(first?.has_more, true);
      assert.equal(ids(first?.user_info)[0], BULK_FIRST);
      const next = await match('extra_info', { bulk: true }, ids(first?.user_info).at(-1));
      assert.equal(next.length, BULK - 1000);
      const odd = await match('extra_info', { bulk: true, parity: 1 });
      assert.equal(odd.length, BULK / 2);
      const columns = await server.call('user-lookup-match', { by: 'user_role', match: 'authenticated' });
      assert.equal(columns.success && columns.response.user_info?.length, 1000);
      assert.equal(columns.success && columns.response.has_more, true);
    });

    it('refuses an unlisted `by` before any SQL', async () => {
      const digest = await server.digest();
      for (const by of [
        'password',
        'user_id; DROP TABLE users',
        '__proto__',
        'constructor',
        'USER_ID',
        '',
        'locked_until',
      ]) {
        const reply = await server.call('user-lookup-match', { by, match: 'x' });
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', by);
        assert.deepEqual(
          (reply.response as { problems?: Array<{ param: string }> }).problems?.map((p) => p.param),
          ['by'],
        );
      }
      assert.equal(await server.digest(), digest);
    });

    it("refuses a match of the wrong type for its field, naming the field's type", async () => {
      const cases: Array<[string, unknown, string, unknown]> = [
        ['user_id', '5', 'incorrect type', 'int'],
        ['user_id', true, 'incorrect type', 'int'],
        ['is_active', 'true', 'incorrect type', 'bool'],
        ['is_active', 1, 'incorrect type', 'bool'],
        ['email', { a: 1 }, 'incorrect type', 'str'],
        ['email', null, 'incorrect type', 'str'],
        ['extra_info', 'x', 'incorrect type', 'dict'],
        ['extra_info', null, 'incorrect type', 'dict'],
        ['created_on', 'yesterday', 'invalid value', 'str'],
        ['created_on', null, 'incorrect type', 'str'],
        ['last_login_try', '2026-02-30T00:00:00', 'invalid value', ['str', 'None']],
      ];
      for (const [by, value, problem, type] of cases) {
        const reply = await server.call('user-lookup-match', { by, match: value });
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', `${by} ${String(value)}`);
        assert.deepEqual((reply.response as { problems?: unknown }).problems, [
          { param: 'match', problem, required_type: type },
        ]);
      }
      for (const value of [{}, [], 1.5, 0, 'x'.repeat(10_000), JSON.parse('{"__proto__": {"a": 1}}')]) {
        const reply = await server.call('user-lookup-match', { by: 'extra_info', match: value });
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(value));
      }
    });
  });
});

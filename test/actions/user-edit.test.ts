import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSession, storedRow } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer, testHasher } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { CREDENTIAL_CHECK_COLUMNS, refusals, reason } from '../helpers/refusals.js';
import { insertUsers } from '../helpers/users.js';
import { sqlOf } from '../helpers/sql.js';

const DAY = 86_400_000;
const PASSWORD = 'the right horse battery';
const USER_EDIT_FAILED = 'Invalid edit-user request: invalid update parameters.';
const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');

forEachDatabase((db) => {
  let server: TestServer;
  /** Session tokens by user id. */
  const tokens = new Map<number, string>();
  before(async () => {
    server = await startTestServer({ database: db });
    await insertUsers(server.app.store, [
      { userId: 4, role: 'authenticated', email: 'jane@example.org', passwordHash: await testHasher.hash(PASSWORD) },
      { userId: 5, role: 'staff' },
      { userId: 6, role: 'superuser' },
      { userId: 7, role: 'authenticated', active: false },
      { userId: 8, role: 'locked', active: false, verified: false },
      { userId: 9, role: 'authenticated', extraInfo: { keep: 1, drop: 2 } },
      { userId: 10, role: 'authenticated' },
      { userId: 11, role: 'authenticated' },
    ]);
    for (const id of [1, 4, 5, 6, 7]) tokens.set(id, await openSession(server, id));
  });
  after(() => server.close());

  const token = (id: number): string => tokens.get(id)!;
  const edit = (initiator: number, role: string, target: number, update_dict: unknown, session?: string) =>
    server.call('user-edit', {
      user_id: initiator,
      user_role: role,
      session_token: session ?? token(initiator),
      target_userid: target,
      update_dict,
    });
  /** User 4 changes their own email, with their password. */
  const editOwn = (update_dict: unknown) =>
    server.call('user-edit', {
      user_id: 4,
      user_role: 'authenticated',
      session_token: token(4),
      target_userid: 4,
      update_dict,
      password: PASSWORD,
    });

  /** The refusal changes nothing, names its reason, shows a safe message and answers no user info. */
  const refused = refusals(() => server, {
    items: (response) => assert.equal(response['user_info'] ?? null, null),
  });
  /** A refusal after the password check of an email change: only the check's own columns change. */
  const refusedAfterCheck = refusals(() => server, {
    writes: CREDENTIAL_CHECK_COLUMNS,
    items: (response) => assert.equal(response['user_info'] ?? null, null),
  });

  describe('user-edit', () => {
    it('lets a user change their own full_name and email, normalised, stamping last_updated', async () => {
      server.clock.advance(1234);
      const reply = await editOwn({ full_name: '  Jane\t\u00a0Q.   Public ', email: 'Jane.Q@Example.ORG' });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, ['User update successful.']);
      const info = reply.success ? reply.response.user_info : null;
      assert.equal(info?.full_name, 'Jane Q. Public');
      assert.equal(info?.email, 'jane.q@example.org');
      assert.equal(info?.last_updated, iso(server.clock.now()));
      assert.equal(info?.user_role, 'authenticated');
      assert.ok(!JSON.stringify(info).includes('password'));
      const found = await server.call('user-lookup-email', { email: 'JANE.Q@example.org' });
      assert.equal(found.success && found.response.user_info?.user_id, 4);
    });

    it('stores names with quotes and SQL or JSON in them literally (not escaped, not interpreted)', async () => {
      for (const name of ['Robert"); DROP TABLE users;--', "O'Brien & <Sons>", '{"user_role": "superuser"}']) {
        const reply = await edit(5, 'staff', 5, { full_name: name });
        assert.equal(reply.success && reply.response.user_info?.full_name, name);
        assert.equal(reply.success && reply.response.user_info?.user_role, 'staff');
      }
      assert.equal((await storedRow(server.app.store, 5))?.['full_name'], '{"user_role": "superuser"}');
    });

    it('accepts the address a user already has, even one sign-up would refuse today', async () => {
      const reply = await edit(1, 'superuser', 1, { email: 'ADMIN@example.org', full_name: 'The Admin' });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.equal(reply.success && reply.response.user_info?.email, 'admin@example.org');
    });

    it('lets a superuser change anyone’s role and activity, auditing it', async () => {
      const reply = await edit(1, 'superuser', 10, { user_role: 'staff', is_active: false });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.equal(reply.success && reply.response.user_info?.user_role, 'staff');
      assert.equal(reply.success && reply.response.user_info?.is_active, false);
      const audit = server.logs.find((l) => l['audit'] === 'user.edited');
      assert.equal(audit?.['role'], 'staff');
      assert.equal(audit?.['previous_role'], 'authenticated');
      assert.ok(!JSON.stringify(audit).includes('"10"') && audit?.['user'] !== 10, 'the user id is hashed');
      const second = await edit(6, 'superuser', 10, { user_role: 'authenticated', is_active: true });
      assert.equal(second.success && second.response.user_info?.user_role, 'authenticated');
    });

    it('refuses the system accounts 2 and 3, even to superusers', async () => {
      for (const target of [2, 3]) {
        await refused(
          edit(1, 'superuser', target, { full_name: 'X' }),
          "can't edit, lock or delete the system anonymous/locked accounts (2, 3)",
          'Editing anonymous/locked user accounts not allowed.',
        );
      }
    });

    it('refuses forged roles, sessions of other users, expired sessions and inactive initiators', async () => {
      const message = 'User session info not available for this user edit attempt.';
      await refused(
        edit(4, 'superuser', 10, { user_role: 'superuser' }),
        "user_role is not the initiating user's stored role",
        message,
      );
      await refused(edit(4, 'staff', 4, { full_name: 'X' }), "user_role is not the initiating user's stored role");
      await refused(
        edit(1, 'superuser', 10, { full_name: 'X' }, token(4)),
        'session does not belong to the initiating user',
        message,
      );
      await refused(
        edit(4, 'authenticated', 4, { full_name: 'X' }, token(5)),
        'session does not belong to the initiating user',
      );
      await refused(
        edit(4, 'authenticated', 4, { full_name: 'X' }, 'no such session'),
        'session does not exist or expired',
      );
      await refused(edit(7, 'authenticated', 7, { full_name: 'X' }), 'user initiating request is not valid', message);
      const short = await openSession(server, 11, 1);
      server.clock.advance(DAY);
      await refused(edit(11, 'authenticated', 11, { full_name: 'X' }, short), 'session does not exist or expired');
    });

    it('keeps non-superusers to their own full_name and email', async () => {
      const denied = 'the initiating user may not edit these items of this user';
      await refused(
        edit(4, 'authenticated', 10, { full_name: 'X' }),
        denied,
        "You don't have permission to make this change.",
      );
      await refused(edit(5, 'staff', 4, { email: 'x@example.org' }), denied);
      await refused(edit(4, 'authenticated', 4, { is_active: true }), denied);
      await refused(edit(4, 'authenticated', 4, { full_name: 'X', user_role: 'superuser' }), denied);
    });

    it('refuses items outside full_name, email, is_active and user_role', async () => {
      for (const update of [
        { password: 'x' },
        { extra_info: { a: 1 } },
        { email_verified: true },
        { user_id: 1 },
        { previous_role: 'superuser' },
        { full_name: 'X', nonsense: 1 },
        { 'full_name ': 'X' },
      ]) {
        await refused(edit(1, 'superuser', 10, update), 'update_dict holds items that may not be edited');
      }
    });

    it('refuses mistyped items and poisoned dicts as invalid parameters', async () => {
      const cases: Array<[unknown, string, string]> = [
        [{ full_name: 1 }, 'update_dict.full_name', 'str'],
        [{ email: null }, 'update_dict.email', 'str'],
        [{ is_active: 'false' }, 'update_dict.is_active', 'bool'],
        [{ user_role: ['superuser'] }, 'update_dict.user_role', 'str'],
      ];
      for (const [update, param, type] of cases) {
        const digest = await server.digest();
        const reply = await edit(1, 'superuser', 10, update);
        assert.equal(reason(reply), 'invalid request parameters');
        assert.deepEqual((reply.response as { problems?: unknown }).problems, [
          { param, problem: 'incorrect type', required_type: type },
        ]);
        assert.equal(await server.digest(), digest);
      }
      for (const update of [
        {},
        [],
        'x',
        JSON.parse('{"__proto__": {"user_role": "superuser"}}'),
        { constructor: 'x' },
      ]) {
        const reply = await edit(1, 'superuser', 10, update);
        assert.equal(reason(reply), 'invalid request parameters', JSON.stringify(update));
      }
      assert.equal(({} as Record<string, unknown>)['user_role'], undefined);
    });

    it('protects account 1 and one’s own role and activity', async () => {
      const rule = "the role and activity of account 1 and of one's own account can't be edited";
      await refused(edit(6, 'superuser', 1, { user_role: 'staff' }), rule);
      await refused(edit(6, 'superuser', 1, { is_active: false }), rule);
      await refused(edit(6, 'superuser', 6, { user_role: 'staff' }), rule);
      await refused(edit(1, 'superuser', 1, { is_active: false }), rule);
      assert.equal((await edit(6, 'superuser', 1, { full_name: 'Still editable' })).success, true);
    });

    it('leaves locking and locked accounts to user-lock', async () => {
      const rule = 'locking, unlocking and the role or activity of a locked account go through user-lock';
      await refused(
        edit(1, 'superuser', 10, { user_role: 'locked' }),
        rule,
        'Locked accounts are changed with lock/unlock.',
      );
      await refused(edit(1, 'superuser', 8, { is_active: true }), rule);
      await refused(edit(1, 'superuser', 8, { user_role: 'authenticated' }), rule);
      assert.equal((await edit(1, 'superuser', 8, { full_name: 'Pending Person' })).success, true);
    });

    it('refuses roles the policy does not have', async () => {
      for (const role of ['emperor', 'SUPERUSER', 'constructor', '__proto__', 'superuser ', 'x'.repeat(10_000)]) {
        await refused(
          edit(1, 'superuser', 10, { user_role: role }),
          'role change requested is not valid',
          'unknown role change request in update_dict',
        );
      }
    });

    it('refuses invalid, confusable, injected and long emails', async () => {
      for (const email of [
        'not an email',
        'jаne@example.org', // Cyrillic а
        "x@example.org' OR '1'='1",
        'x@example.org"; DROP TABLE users; --',
        'someone@mailinator.com',
        'postmaster@example.org',
        `${'x'.repeat(10_000)}@example.org`,
      ]) {
        await refused(
          editOwn({ email }),
          'invalid email',
          "The email address provided doesn't seem to be a valid email address.",
        );
      }
    });

    it('refuses NUL and lone surrogates anywhere in update_dict as invalid parameters', async () => {
      for (const update of [{ email: 'admin@example.org\u0000' }, { full_name: 'x\ud800' }]) {
        const reply = await edit(4, 'authenticated', 4, update);
        assert.equal(reason(reply), 'invalid request parameters');
      }
    });

    it('refuses names that are empty, too long or hold a link', async () => {
      for (const full_name of [
        '',
        ' \t ',
        'x'.repeat(10_000),
        'Visit www.example.com',
        'http://spam',
        'cheap-pills.com deals',
      ]) {
        await refused(edit(4, 'authenticated', 4, { full_name }), 'invalid full name');
      }
    });

    it('keeps emails unique, case-insensitively and under concurrent edits', async () => {
      await refusedAfterCheck(
        editOwn({ email: 'USER5@example.org' }),
        'email already in use by another user',
        "That email address can't be used for this account.",
      );
      const both = await Promise.all([
        edit(1, 'superuser', 10, { email: 'contested@example.org' }),
        edit(1, 'superuser', 11, { email: 'Contested@Example.org' }),
      ]);
      assert.deepEqual(both.map((r) => r.success).sort(), [false, true]);
      assert.equal(reason(both.find((r) => !r.success)!), 'email already in use by another user');
    });

    it('fails for a target that does not exist', async () => {
      await refused(edit(1, 'superuser', 999_999, { full_name: 'X' }), 'user does not exist', 'User update failed.');
    });
  });

  describe('internal-user-edit', () => {
    const internal = (target: number, update_dict: unknown) =>
      server.call('internal-user-edit', { target_userid: target, update_dict });

    it('writes the columns and merges extra_info, `__delete__` removing items', async () => {
      server.clock.advance(777);
      const reply = await internal(9, {
        full_name: 'Acme example.com Ltd',
        email: 'Nine@Example.org',
        email_verified: false,
        is_active: false,
        user_role: 'staff',
        extra_info: { drop: '__delete__', added: { deep: [1, 2] }, absent: '__delete__' },
      });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, ['User-info update successful.']);
      const info = reply.success ? reply.response.user_info : null;
      assert.deepEqual(info?.extra_info, { keep: 1, added: { deep: [1, 2] } });
      assert.equal(info?.full_name, 'Acme example.com Ltd', 'no link check for the trusted frontend');
      assert.equal(info?.email, 'nine@example.org');
      assert.equal(info?.email_verified, false);
      assert.equal(info?.is_active, false);
      assert.equal(info?.user_role, 'staff');
      assert.equal(info?.last_updated, iso(server.clock.now()));
    });

    it('never changes the system accounts 2 and 3, nor the role or activity of account 1', async () => {
      const before2 = await storedRow(server.app.store, 2);
      const before3 = await storedRow(server.app.store, 3);
      for (const target of [2, 3]) {
        for (const update of [{ user_role: 'superuser' }, { is_active: true }, { full_name: 'Visitor' }]) {
          await refused(
            internal(target, update),
            "can't edit, lock or delete the system anonymous/locked accounts (2, 3)",
            USER_EDIT_FAILED,
          );
        }
      }
      assert.deepEqual(await storedRow(server.app.store, 2), before2);
      assert.deepEqual(await storedRow(server.app.store, 3), before3);
      for (const update of [
        { is_active: false },
        { user_role: 'staff' },
        { user_role: 'superuser', is_active: true },
      ]) {
        await refused(
          internal(1, update),
          "the role and activity of account 1 and of one's own account can't be edited",
          USER_EDIT_FAILED,
        );
      }
      const renamed = await internal(1, { full_name: 'The Admin' });
      assert.equal(renamed.success, true, 'account 1 may still be renamed');
    });

    it('refuses every forbidden item of the spec and our own columns', async () => {
      for (const key of [
        'user_id',
        'system_id',
        'password',
        'emailverify_sent_datetime',
        'emailforgotpass_sent_datetime',
        'emailchangepass_sent_datetime',
        'last_login_success',
        'last_login_try',
        'failed_login_tries',
        'created_on',
        'last_updated',
        'locked_until',
        'previous_role',
        'unknown_column',
        'full_name; DROP TABLE users',
      ]) {
        await refused(
          internal(9, { full_name: 'Fine', [key]: 1 }),
          'update_dict holds items that may not be edited',
          'Invalid edit-user request: invalid update parameters.',
        );
      }
    });

    it('type-checks each item and refuses roles outside the policy and invalid emails', async () => {
      for (const [update, param] of [
        [{ is_active: 'true' }, 'update_dict.is_active'],
        [{ email_verified: 1 }, 'update_dict.email_verified'],
        [{ extra_info: [1] }, 'update_dict.extra_info'],
        [{ extra_info: 'x' }, 'update_dict.extra_info'],
      ] as const) {
        const reply = await internal(9, update);
        assert.equal(reason(reply), 'invalid request parameters');
        assert.equal((reply.response as { problems?: Array<{ param: string }> }).problems?.[0]?.param, param);
      }
      await refused(internal(9, { user_role: 'constructor' }), 'role change requested is not valid');
      await refused(internal(9, { email: 'user4' }), 'invalid email');
      await refused(internal(9, { email: 'user5@example.org' }), 'email already in use by another user');
      await refused(internal(9, { full_name: ' ' }), 'invalid full name');
      await refused(internal(999_999, { full_name: 'X' }), 'user does not exist', 'User-info update failed.');
    });

    it('refuses a merge beyond the dict bounds and poisoned keys, changing nothing', async () => {
      const big = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`a${i}`, i]));
      assert.equal((await internal(11, { extra_info: big })).success, true);
      const more = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`b${i}`, i]));
      await refused(internal(11, { extra_info: more }), 'the merged dict would exceed its size or depth bounds');
      for (const update of [
        JSON.parse('{"extra_info": {"__proto__": {"admin": true}}}'),
        { extra_info: { constructor: { prototype: 1 } } },
        { extra_info: { ok: 'nul\u0000' } },
      ]) {
        const reply = await internal(11, update);
        assert.equal(reason(reply), 'invalid request parameters', JSON.stringify(update));
      }
    });

    it('merges into a stored extra_info holding a `__proto__` key without reaching any prototype', async () => {
      await sqlOf(server.app.store)('users')
        .where('user_id', 11)
        .update({ extra_info: '{"__proto__": {"admin": true}, "a": 1}' });
      const reply = await internal(11, { extra_info: { b: 2 } });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.success && reply.response.user_info?.extra_info, { a: 1, b: 2 });
      assert.equal(({} as Record<string, unknown>)['admin'], undefined);
    });

    it('merges extra_info from null and keeps every item of concurrent edits', async () => {
      await sqlOf(server.app.store)('users').where('user_id', 10).update({ extra_info: null });
      const edits = Array.from({ length: 20 }, (_, i) => internal(10, { extra_info: { [`k${i}`]: i } }));
      for (const reply of await Promise.all(edits)) assert.equal(reply.success, true, JSON.stringify(reply));
      const listed = await server.call('user-list', { user_id: 10 });
      const extra = listed.success ? listed.response.user_info?.[0]?.extra_info : null;
      assert.equal(Object.keys(extra ?? {}).length, 20);
    });
  });
});

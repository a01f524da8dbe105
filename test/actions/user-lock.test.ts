import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertKeyRows, openSession, rowsOf, storedRow } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer, testHasher } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { refusals, reason } from '../helpers/refusals.js';
import { insertUsers } from '../helpers/users.js';

const DAY = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');

forEachDatabase((db) => {
  let server: TestServer;
  let admin: string;
  before(async () => {
    server = await startTestServer({ database: db });
    await insertUsers(server.app.store, [
      { userId: 4, role: 'authenticated' },
      { userId: 5, role: 'staff' },
      { userId: 6, role: 'superuser' },
      { userId: 7, role: 'locked', active: false, verified: false, email: 'pending@example.org' },
      { userId: 8, role: 'locked', active: false, verified: false, email: 'new@example.org' },
      { userId: 9, role: 'authenticated' },
    ]);
    admin = await openSession(server, 1);
  });
  after(() => server.close());

  const lock = (target: number, action: string, initiator = 1, role = 'superuser', session?: string) =>
    server.call('user-lock', {
      user_id: initiator,
      user_role: role,
      session_token: session ?? admin,
      target_userid: target,
      action,
    });

  const refused = refusals(() => server);

  describe('user-lock', () => {
    it('locks: role locked, inactive, previous role kept, every session and key of the user ended', async () => {
      const store = server.app.store;
      const sessions = [await openSession(server, 4), await openSession(server, 4)];
      await insertKeyRows(store, 4, sessions[0]!, server.clock.now());
      const other = await openSession(server, 9);
      await insertKeyRows(store, 9, other, server.clock.now());
      assert.deepEqual(await rowsOf(store, 4), {
        users: 1,
        sessions: 2,
        apikeys: 1,
        apikeys_nosession: 1,
        refresh_tokens: 1,
      });

      server.clock.advance(500);
      const reply = await lock(4, 'lock');
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, ['User lock toggle successful.']);
      const response = reply.success ? reply.response : null;
      assert.equal(response?.locked, true);
      assert.equal(response?.user_info?.user_role, 'locked');
      assert.equal(response?.user_info?.is_active, false);
      assert.equal(response?.user_info?.last_updated, iso(server.clock.now()));
      assert.equal((await storedRow(store, 4))?.['previous_role'], 'authenticated');
      assert.deepEqual(await rowsOf(store, 4), {
        users: 1,
        sessions: 0,
        apikeys: 0,
        apikeys_nosession: 0,
        refresh_tokens: 0,
      });
      for (const token of sessions)
        assert.equal((await server.call('session-exists', { session_token: token })).success, false);
      assert.deepEqual(
        await rowsOf(store, 9),
        { users: 1, sessions: 1, apikeys: 1, apikeys_nosession: 1, refresh_tokens: 1 },
        "other users' sessions and keys stay",
      );
      const audit = server.logs.find((l) => l['audit'] === 'user.locked');
      assert.equal(audit?.['ended_sessions'], 2);
      assert.equal(audit?.['changed'], true);
    });

    it('locks a locked account again without forgetting the role, ending what was left', async () => {
      const late = await openSession(server, 4);
      const reply = await lock(4, 'lock');
      assert.equal(reply.success && reply.response.locked, true);
      assert.equal((await storedRow(server.app.store, 4))?.['previous_role'], 'authenticated');
      assert.equal((await server.call('session-exists', { session_token: late })).success, false);
    });

    it('unlocks: the previous role and activity come back', async () => {
      const reply = await lock(4, 'unlock');
      assert.equal(reply.success, true, JSON.stringify(reply));
      const response = reply.success ? reply.response : null;
      assert.equal(response?.locked, false);
      assert.equal(response?.user_info?.user_role, 'authenticated');
      assert.equal(response?.user_info?.is_active, true);
      assert.equal((await storedRow(server.app.store, 4))?.['previous_role'], null);
      assert.ok(server.logs.some((l) => l['audit'] === 'user.unlocked'));
    });

    it('unlocking an account no superuser locked changes nothing', async () => {
      const digest = await server.digest();
      const reply = await lock(5, 'unlock');
      assert.equal(reply.success, true);
      assert.equal(reply.success && reply.response.locked, false);
      assert.equal(reply.success && reply.response.user_info?.user_role, 'staff');
      assert.equal(await server.digest(), digest);
    });

    it('unlocking ends a temporary lock-out: the right password works again', async () => {
      const hash = await testHasher.hash('the right password here');
      await insertUsers(server.app.store, [{ userId: 10, role: 'authenticated', passwordHash: hash }]);
      const check = (password: string) =>
        server.call('user-passcheck-nosession', { email: 'user10@example.org', password });
      for (let i = 0; i < 11; i++) await check('wrong password');
      const locked = await check('the right password here');
      assert.equal(!locked.success && locked.failure_reason, 'user is temporarily locked after too many failed logins');
      const reply = await lock(10, 'unlock');
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.equal((await check('the right password here')).success, true);
    });

    it('a superuser may lock another superuser, whose role comes back on unlock', async () => {
      assert.equal((await lock(6, 'lock')).success, true);
      const back = await lock(6, 'unlock');
      assert.equal(back.success && back.response.user_info?.user_role, 'superuser');
      assert.equal(back.success && back.response.user_info?.is_active, true);
    });

    it('keeps a sign-up that was never verified as it was: locked by a superuser, verification changes nothing', async () => {
      const locked = await lock(7, 'lock');
      assert.equal(locked.success && locked.response.locked, true);
      assert.equal((await storedRow(server.app.store, 7))?.['previous_role'], 'locked');
      const verified = await server.call('user-set-emailverified', { email: 'pending@example.org' });
      assert.equal(verified.success, true);
      assert.deepEqual(verified.success && verified.response, {
        user_id: 7,
        user_role: 'locked',
        is_active: false,
        emailverify_sent_datetime: null,
      });
      const unlocked = await lock(7, 'unlock');
      assert.equal(unlocked.success && unlocked.response.user_info?.user_role, 'locked');
      assert.equal(unlocked.success && unlocked.response.user_info?.is_active, false);
      assert.equal(unlocked.success && unlocked.response.locked, false);
      const now = await server.call('user-set-emailverified', { email: 'pending@example.org' });
      assert.equal(now.success && now.response.user_role, 'authenticated');
      assert.equal(now.success && now.response.is_active, true);
    });

    it('is for superusers only, and refuses forged roles', async () => {
      const own = await openSession(server, 5);
      await refused(
        lock(9, 'lock', 5, 'staff', own),
        "user role is not 'superuser', required for this action",
        "You don't have lock/unlock privileges.",
      );
      await refused(lock(9, 'lock', 5, 'superuser', own), "user_role is not the initiating user's stored role");
    });

    it('refuses self, the system accounts and users that do not exist', async () => {
      await refused(
        lock(1, 'lock'),
        "can't toggle a lock state on self",
        "You can't lock/unlock your own user account.",
      );
      for (const target of [2, 3]) {
        await refused(lock(target, 'lock'), "can't edit, lock or delete the system anonymous/locked accounts (2, 3)");
        await refused(lock(target, 'unlock'), "can't edit, lock or delete the system anonymous/locked accounts (2, 3)");
      }
      await refused(lock(999_999, 'lock'), 'user does not exist', 'User lock toggle failed.');
      await refused(lock(999_999, 'unlock'), 'user does not exist');
    });

    it('refuses sessions of other users, unknown and expired sessions', async () => {
      const message = 'Superuser session info not available for this lock/unlock attempt.';
      const sixes = await openSession(server, 6);
      await refused(lock(9, 'lock', 1, 'superuser', sixes), 'session does not belong to the initiating user', message);
      await refused(lock(9, 'lock', 1, 'superuser', "' OR 1=1 --"), 'session does not exist or expired', message);
      const short = await openSession(server, 6, 1);
      server.clock.advance(DAY);
      await refused(lock(9, 'lock', 6, 'superuser', short), 'session does not exist or expired');
    });

    it('refuses an unknown action and mistyped items', async () => {
      for (const body of [
        { action: 'delete' },
        { action: 'LOCK' },
        { action: null },
        { target_userid: '9' },
        { user_id: true },
        { session_token: 'x'.repeat(10_000) },
      ]) {
        const reply = await server.call('user-lock', {
          user_id: 1,
          user_role: 'superuser',
          session_token: admin,
          target_userid: 9,
          action: 'lock',
          ...body,
        });
        assert.equal(reason(reply), 'invalid request parameters', JSON.stringify(body));
      }
    });
  });

  describe('user-set-emailverified', () => {
    it('verifies an unverified sign-up: verified, active, authenticated', async () => {
      server.clock.advance(1000);
      const reply = await server.call('user-set-emailverified', { email: 'NEW@example.org' });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, ['Email verification toggle request succeeded.']);
      assert.deepEqual(reply.success && reply.response, {
        user_id: 8,
        user_role: 'authenticated',
        is_active: true,
        emailverify_sent_datetime: null,
      });
      const row = await storedRow(server.app.store, 8);
      assert.ok(row?.['email_verified'] === true || row?.['email_verified'] === 1);
      assert.ok(server.logs.some((l) => l['audit'] === 'email.verified'));
    });

    it('changes nothing on anyone else: verified, deactivated or locked by a superuser', async () => {
      await lock(9, 'lock');
      await server.call('user-edit', {
        user_id: 1,
        user_role: 'superuser',
        session_token: admin,
        target_userid: 5,
        update_dict: { is_active: false },
      });
      const digest = await server.digest();
      for (const [email, expected] of [
        ['user9@example.org', { user_id: 9, user_role: 'locked', is_active: false }],
        ['user5@example.org', { user_id: 5, user_role: 'staff', is_active: false }],
        ['new@example.org', { user_id: 8, user_role: 'authenticated', is_active: true }],
      ] as const) {
        const reply = await server.call('user-set-emailverified', { email });
        assert.equal(reply.success, true);
        assert.deepEqual(reply.success && reply.response, { ...expected, emailverify_sent_datetime: null });
      }
      assert.equal(await server.digest(), digest);
    });

    it('fails for an unknown email', async () => {
      await refused(
        server.call('user-set-emailverified', { email: "nobody@example.org' OR '1'='1" }),
        'user does not exist',
        'Email verification toggle request failed.',
      );
    });
  });

  describe('user-set-emailsent', () => {
    it('records the send time of either kind from the server clock', async () => {
      server.clock.advance(4321);
      const signup = await server.call('user-set-emailsent', { email: 'User4@Example.org', email_type: 'signup' });
      assert.equal(signup.success, true, JSON.stringify(signup));
      assert.deepEqual(signup.messages, ['Email sent notification request succeeded.']);
      assert.deepEqual(signup.success && signup.response, {
        user_id: 4,
        email: 'user4@example.org',
        user_role: 'authenticated',
        is_active: true,
        emailverify_sent_datetime: iso(server.clock.now()),
        emailforgotpass_sent_datetime: null,
      });
      const sentAt = server.clock.now();
      server.clock.advance(10);
      const forgot = await server.call('user-set-emailsent', { email: 'user4@example.org', email_type: 'forgotpass' });
      assert.equal(forgot.success && forgot.response.emailverify_sent_datetime, iso(sentAt));
      assert.equal(forgot.success && forgot.response.emailforgotpass_sent_datetime, iso(server.clock.now()));
      const listed = await server.call('user-list', { user_id: 4 });
      assert.equal(listed.success && listed.response.user_info?.[0]?.last_updated, iso(server.clock.now()));
    });

    it('fails for an unknown email and refuses other email types', async () => {
      await refused(
        server.call('user-set-emailsent', { email: 'nobody@example.org', email_type: 'signup' }),
        'user does not exist',
        'Email sent notification request failed.',
      );
      for (const email_type of ['changepass', 'SIGNUP', '', null, 1]) {
        const reply = await server.call('user-set-emailsent', { email: 'user4@example.org', email_type });
        assert.equal(reason(reply), 'invalid request parameters', String(email_type));
      }
    });
  });
});

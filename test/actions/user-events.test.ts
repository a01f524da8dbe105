/**
 * A user's own security history (docs/design.md#security-history): the audit events of their account, newest first,
 * with where and from what browser, kept `eventretention` days and at most HISTORY_KEPT per user. Nobody reads
 * another user's history but a superuser; the failed logins of unknown addresses are nobody's to read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GOOD_PASSWORD, openSession, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

const DAY = 86_400_000;

forEachDatabase((db) => {
  let server: TestServer;
  let alice: number;
  let bob: number;
  let aliceToken: string;
  before(async () => {
    server = await startTestServer({ database: db });
    alice = await verifiedUser(server, 'alice@example.org');
    bob = await verifiedUser(server, 'bob@example.org');
    aliceToken = await openSession(server, alice);
  });
  after(() => server.close());

  const events = (userId: number, token: string, extra: Record<string, unknown> = {}) =>
    server.call('user-events', { user_id: userId, session_token: token, ...extra });
  const namesOf = (reply: Awaited<ReturnType<typeof events>>): string[] =>
    (reply.response.events ?? []).map((e) => e.event);

  /** A login through the login page's session, opened from this browser. */
  async function login(email: string, password: string, userAgent = 'Firefox on Linux'): Promise<boolean> {
    const page = await server.call('session-new', {
      ip_address: '203.0.113.9',
      user_agent: userAgent,
      user_id: null,
      extra_info_json: {},
    });
    assert.ok(page.success);
    const reply = await server.call('user-login', { session_token: page.response.session_token, email, password });
    return reply.success;
  }

  describe('what is recorded', () => {
    it('records logins and failed ones with the address and browser of the login page, newest first', async () => {
      const user = await verifiedUser(server, 'history@example.org');
      const token = await openSession(server, user);
      assert.equal(await login('history@example.org', 'not the password'), false);
      server.clock.advance(1000);
      assert.equal(await login('history@example.org', GOOD_PASSWORD, 'Safari on iPhone'), true);
      const reply = await events(user, token);
      assert.ok(reply.success, JSON.stringify(reply));
      const [succeeded, failed] = reply.response.events;
      assert.deepEqual(namesOf(reply).slice(0, 2), ['login.succeeded', 'login.failed']);
      assert.deepEqual(
        [succeeded?.ip_address, succeeded?.user_agent, succeeded?.detail],
        // The request's address (the frontend's client_ipaddr), the login page's browser.
        ['203.0.113.7', 'Safari on iPhone', { action: 'user-login' }],
      );
      assert.deepEqual(
        [failed?.user_agent, failed?.detail],
        ['Firefox on Linux', { action: 'user-login', reason: 'wrong_credentials' }],
      );
      assert.ok((succeeded?.event_id ?? 0) > (failed?.event_id ?? 0));
      assert.equal(failed?.time, new Date(server.clock.now() - 1000).toISOString().replace('Z', '000+00:00'));
      assert.deepEqual(Object.keys(succeeded ?? {}).sort(), [
        'detail',
        'event',
        'event_id',
        'ip_address',
        'time',
        'user_agent',
      ]);
      assert.equal(reply.response.next_before, null);
    });

    it('records password changes, email changes, lock-outs and a device signed out, never a secret', async () => {
      const user = await verifiedUser(server, 'changes@example.org');
      const token = await openSession(server, user);
      const other = await server.call('session-new', {
        ip_address: '192.0.2.44',
        user_agent: 'Old laptop',
        user_id: user,
        extra_info_json: {},
      });
      assert.ok(other.success);
      const changed = await server.call('user-changepass', {
        user_id: user,
        session_token: token,
        full_name: 'Jane Doe',
        email: 'changes@example.org',
        current_password: GOOD_PASSWORD,
        new_password: 'a-new-and-long-passphrase-77',
      });
      assert.ok(changed.success, JSON.stringify(changed));
      const edited = await server.call('user-edit', {
        user_id: user,
        user_role: 'authenticated',
        session_token: token,
        target_userid: user,
        update_dict: { email: 'changed@example.org' },
        password: 'a-new-and-long-passphrase-77',
      });
      assert.ok(edited.success, JSON.stringify(edited));
      const again = await server.call('session-new', {
        ip_address: '192.0.2.45',
        user_agent: 'Tablet',
        user_id: user,
        extra_info_json: {},
      });
      assert.ok(again.success);
      const revoked = await server.call('session-revoke', {
        user_id: user,
        session_token: token,
        target_session_id: again.response.session_id,
      });
      assert.ok(revoked.success, JSON.stringify(revoked));
      for (let i = 0; i < 12; i++) await login('changed@example.org', 'wrong guess');

      const reply = await events(user, token, { limit: 100 });
      assert.ok(reply.success);
      const names = namesOf(reply);
      for (const name of [
        'password.changed',
        'email.changed',
        'login.succeeded',
        'session.ended',
        'account.locked-out',
      ])
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      const text = JSON.stringify(reply.response.events);
      for (const secret of [GOOD_PASSWORD, 'a-new-and-long-passphrase-77', token, 'changes@example.org'])
        assert.ok(!text.includes(secret), 'no password, token or address in the history');
      const emailChange = reply.response.events.find((e) => e.event === 'email.changed');
      assert.deepEqual(emailChange?.detail, { action: 'user-edit', by_superuser: false });
      // The lock-out and the failure that caused it are one row (the same statements as any failure).
      const locked = reply.response.events.filter((e) => e.event === 'account.locked-out');
      assert.equal(locked.length, 1);
      assert.deepEqual(locked[0]?.detail, {
        action: 'user-login',
        reason: 'temporarily_locked',
        failed_login_tries: 11,
        locked_for_s: 3600,
      });
      assert.equal(
        names.filter((n) => n === 'login.failed').length,
        11,
        'the twelve failures: eleven rows and the lock',
      );
    });

    it('does not record a logout, a new session or a check of the session', async () => {
      const user = await verifiedUser(server, 'quiet@example.org');
      const token = await openSession(server, user);
      const other = await openSession(server, user);
      assert.ok((await server.call('session-exists', { session_token: other })).success);
      assert.ok((await server.call('user-logout', { user_id: user, session_token: other })).success);
      const reply = await events(user, token);
      assert.deepEqual(namesOf(reply), ['user.signed-up']);
    });

    it('keeps the failed logins of an unknown address out of every readable history', async () => {
      const before = await sqlOf(server.app.store)('user_events').where('user_id', 3).count({ n: '*' });
      assert.equal(await login('nobody-here@example.org', 'guess'), false);
      const afterCount = await sqlOf(server.app.store)('user_events').where('user_id', 3).count({ n: '*' });
      // Written to the dummy account's, so a known and an unknown address cost the same write.
      assert.equal(Number(afterCount[0]?.['n']) - Number(before[0]?.['n']), 1);
      const admin = await openSession(server, 1);
      const reply = await events(1, admin, { target_userid: 3 });
      assert.equal(reply.success, false);
      assert.equal(reply.response.events, null);
    });
  });

  describe('pages', () => {
    it('pages with before and limit, and says when the last page came', async () => {
      const user = await verifiedUser(server, 'pages@example.org');
      const token = await openSession(server, user);
      for (let i = 0; i < 4; i++) await login('pages@example.org', `wrong ${String(i)}`);
      const first = await events(user, token, { limit: 2 });
      assert.ok(first.success);
      assert.equal(first.response.events.length, 2);
      const cursor = first.response.next_before;
      assert.equal(cursor, first.response.events[1]?.event_id);
      const second = await events(user, token, { limit: 2, before: cursor });
      assert.ok(second.success);
      assert.equal(second.response.events.length, 2);
      const third = await events(user, token, { limit: 2, before: second.response.next_before });
      assert.ok(third.success);
      assert.deepEqual(namesOf(third), ['user.signed-up']);
      assert.equal(third.response.next_before, null);
      const ids = [first, second, third].flatMap((r) => (r.response.events ?? []).map((e) => e.event_id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
        'strictly newest first across pages',
      );
      assert.equal(new Set(ids).size, 5);
    });
  });

  describe('who may read', () => {
    it("answers every combination of ids: only one's own history, or a superuser's reading anyone's", async () => {
      const bobToken = await openSession(server, bob);
      const admin = await openSession(server, 1);
      const cases: Array<[number, string, number | undefined, string | null]> = [
        [alice, aliceToken, undefined, null],
        [alice, aliceToken, alice, null],
        [alice, aliceToken, bob, 'not_superuser'],
        [bob, aliceToken, undefined, 'session_user_mismatch'],
        [bob, aliceToken, bob, 'session_user_mismatch'],
        [alice, bobToken, alice, 'session_user_mismatch'],
        [bob, bobToken, alice, 'not_superuser'],
        [1, admin, bob, null],
        [alice, admin, bob, 'session_user_mismatch'],
        [999_999, aliceToken, undefined, 'session_user_mismatch'],
        [alice, 'no-such-token', undefined, 'session_not_found'],
        [1, admin, 2, 'system_account'],
      ];
      for (const [userId, token, target, failure] of cases) {
        const reply = await events(userId, token, target === undefined ? {} : { target_userid: target });
        const label = `user ${String(userId)} reading ${String(target ?? userId)}`;
        if (failure === null) {
          assert.ok(reply.success, label);
          const owner = target ?? userId;
          assert.ok(namesOf(reply).includes('user.signed-up') || owner === 1, label);
        } else {
          assert.equal(reply.success, false, label);
          assert.equal(reply.response.events, null, label);
          const codes: Record<string, string> = {
            not_superuser: "user role is not 'superuser', required for this action",
            session_user_mismatch: 'the session belongs to another user',
          };
          if (codes[failure] !== undefined) assert.equal(!reply.success && reply.failure_reason, codes[failure], label);
        }
      }
    });

    it('refuses the system accounts’ own sessions', async () => {
      const anonymous = await openSession(server, null);
      const reply = await events(2, anonymous);
      assert.equal(!reply.success && reply.response.events, null);
    });
  });

  describe('retention and bounds', () => {
    it('shows nothing past eventretention days, and the purge deletes it', async () => {
      const user = await verifiedUser(server, 'old@example.org');
      server.clock.advance(91 * DAY);
      const token = await openSession(server, user);
      const reply = await events(user, token);
      assert.ok(reply.success);
      assert.deepEqual(reply.response.events, [], 'the sign-up of 91 days ago is gone (default 90 days)');
      const left = async () =>
        Number((await sqlOf(server.app.store)('user_events').where('user_id', user).count({ n: '*' }))[0]?.['n'] ?? -1);
      assert.equal(await left(), 1);
      const purged = await server.app.store.purgeExpired(server.clock.now());
      assert.ok((purged.deleted['user_events'] ?? 0) >= 1);
      assert.equal(await left(), 0);
    });

    it('keeps only the newest events of a user', async () => {
      const user = await verifiedUser(server, 'bounded@example.org');
      const add = (n: number) =>
        server.app.store.userEvents.add(
          {
            userId: user,
            event: 'login.failed',
            time: server.clock.now(),
            ipAddress: null,
            userAgent: null,
            detail: { n },
            expires: server.clock.now() + DAY,
          },
          3,
        );
      for (let n = 1; n <= 5; n++) await add(n);
      const kept = await server.app.store.userEvents.list(user, server.clock.now(), null, 10);
      assert.deepEqual(
        kept.map((e) => e.detail['n']),
        [5, 4, 3],
      );
    });

    it('gives the user agents of the newest logins, for the new-device mail', async () => {
      const user = await verifiedUser(server, 'agents@example.org');
      for (const agent of ['Firefox', 'Safari', 'Firefox']) {
        assert.ok(await login('agents@example.org', GOOD_PASSWORD, agent));
        server.clock.advance(1000);
      }
      const agents = await server.app.store.userEvents.agentsOf(user, ['login.succeeded'], 2);
      assert.deepEqual(agents, ['Firefox', 'Safari']);
    });

    it("goes with the user's account", async () => {
      const user = await verifiedUser(server, 'leaving@example.org');
      const token = await openSession(server, user);
      const deleted = await server.call('user-delete', {
        user_id: user,
        email: 'leaving@example.org',
        password: GOOD_PASSWORD,
        session_token: token,
      });
      assert.ok(deleted.success, JSON.stringify(deleted));
      const left = await sqlOf(server.app.store)('user_events').where('user_id', user).count({ n: '*' });
      assert.equal(Number(left[0]?.['n']), 0);
    });
  });

  describe('bad input', () => {
    it('refuses a limit or a cursor out of range', async () => {
      for (const extra of [{ limit: 0 }, { limit: 101 }, { before: 0 }, { limit: '5' }, { before: 1.5 }]) {
        const reply = await events(alice, aliceToken, extra);
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(extra));
      }
    });
  });
});

describe('eventretention 0', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { eventRetentionDays: 0 } });
  });
  after(() => server.close());

  it('records nothing', async () => {
    const user = await verifiedUser(server, 'private@example.org');
    const token = await openSession(server, user);
    const reply = await server.call('user-events', { user_id: user, session_token: token });
    assert.ok(reply.success);
    assert.deepEqual(reply.response.events, []);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { timeToDb } from '../../src/services/store/dialect.js';
import { countingQueue, insertKeyRows, openSession, rowsOf } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer, testHasher } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { CREDENTIAL_CHECK_COLUMNS, refusals, reason } from '../helpers/refusals.js';
import { insertUsers } from '../helpers/users.js';
import { sqlOf } from '../helpers/sql.js';
import { logsWritten } from '../helpers/turns.js';

const DAY = 86_400_000;
const PASSWORD = 'the right horse battery';
const NOT_VERIFIED = ['We could not verify your email address or password.'];
const WRONG_CREDENTIALS = "user does not exist or password doesn't match";

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: db });
    const passwordHash = await testHasher.hash(PASSWORD);
    await insertUsers(
      server.app.store,
      [4, 5, 6, 7, 8, 9, 10, 11].map((userId) => ({ userId, role: 'authenticated', passwordHash })),
    );
    await insertUsers(server.app.store, [
      { userId: 20, role: 'superuser', passwordHash },
      { userId: 21, role: 'staff', passwordHash },
    ]);
  });
  after(() => server.close());

  const remove = (body: Record<string, unknown>) => server.call('user-delete', body);

  // A refusal after the password check writes only the check's own columns.
  const refused = refusals(() => server, {
    writes: CREDENTIAL_CHECK_COLUMNS,
    messages: NOT_VERIFIED,
    items: ({ user_id, email }) => assert.deepEqual({ user_id, email }, { user_id: null, email: null }),
  });

  describe('user-delete', () => {
    it('deletes a user who gives their password, with their sessions and keys', async () => {
      const store = server.app.store;
      const session = await openSession(server, 4);
      await insertKeyRows(store, 4, session, server.clock.now());
      const reply = await remove({ email: 'User4@Example.org', user_id: 4, password: PASSWORD });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, ['User successfully deleted from DB.']);
      assert.deepEqual(reply.success && reply.response, { user_id: 4, email: 'user4@example.org' });
      assert.deepEqual(await rowsOf(store, 4), {
        users: 0,
        sessions: 0,
        apikeys: 0,
        apikeys_nosession: 0,
        refresh_tokens: 0,
      });
      await logsWritten();
      assert.ok(server.logs.some((l) => l['audit'] === 'user.deleted'));
    });

    it('lets a superuser’s session stand in for the password', async () => {
      const admin = await openSession(server, 1);
      const reply = await remove({ email: 'user5@example.org', user_id: 5, session_token: admin });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.equal((await rowsOf(server.app.store, 5)).users, 0);
      const second = await openSession(server, 20);
      assert.equal((await remove({ email: 'user21@example.org', user_id: 21, session_token: second })).success, true);
    });

    it('needs the password without a superuser session', async () => {
      const own = await openSession(server, 6);
      const short = await openSession(server, 1, 1);
      server.clock.advance(DAY);
      for (const body of [
        { email: 'user6@example.org', user_id: 6 },
        { email: 'user6@example.org', user_id: 6, session_token: own },
        { email: 'user6@example.org', user_id: 6, session_token: short },
        { email: 'user6@example.org', user_id: 6, session_token: 'made up' },
      ]) {
        const digest = await server.digest();
        const reply = await remove(body);
        assert.equal(reason(reply), 'invalid request parameters');
        assert.deepEqual((reply.response as { problems?: unknown }).problems, [
          { param: 'password', problem: 'missing', required_type: 'str' },
        ]);
        assert.equal(await server.digest(), digest);
      }
      const withPassword = await remove({
        email: 'user6@example.org',
        user_id: 6,
        password: PASSWORD,
        session_token: own,
      });
      assert.equal(withPassword.success, true, 'a non-superuser session with the password is fine');
    });

    it('answers wrong passwords, unknown users and mismatched emails alike', async () => {
      await refused(remove({ email: 'user7@example.org', user_id: 7, password: 'wrong' }), WRONG_CREDENTIALS);
      await refused(remove({ email: 'user7@example.org', user_id: 7, password: '' }), WRONG_CREDENTIALS);
      await refused(remove({ email: 'user8@example.org', user_id: 7, password: PASSWORD }), WRONG_CREDENTIALS);
      await refused(remove({ email: 'nobody@example.org', user_id: 999_999, password: PASSWORD }), WRONG_CREDENTIALS);
      await refused(
        remove({ email: "user7@example.org' OR '1'='1", user_id: 7, password: "' OR '1'='1" }),
        WRONG_CREDENTIALS,
      );
      await refused(remove({ email: 'usеr7@example.org', user_id: 7, password: PASSWORD }), WRONG_CREDENTIALS);
    });

    it('refuses a temporarily locked account, even with the right password, until the lock ends', async () => {
      const store = server.app.store;
      await sqlOf(store)('users')
        .where('user_id', 9)
        .update({ locked_until: timeToDb(store.dialect, server.clock.now() + 60_000) });
      await refused(
        remove({ email: 'user9@example.org', user_id: 9, password: PASSWORD }),
        'user is temporarily locked after too many failed logins',
      );
      server.clock.advance(60_001);
      assert.equal((await remove({ email: 'user9@example.org', user_id: 9, password: PASSWORD })).success, true);
    });

    it('never deletes superusers nor the system accounts', async () => {
      const admin = await openSession(server, 1);
      await refused(
        remove({ email: 'user20@example.org', user_id: 20, password: PASSWORD }),
        "can't delete superusers",
        ["Can't delete superusers."],
      );
      await refused(
        remove({ email: 'user20@example.org', user_id: 20, session_token: admin }),
        "can't delete superusers",
        ["Can't delete superusers."],
      );
      await refused(
        remove({ email: 'admin@example.org', user_id: 1, session_token: admin }),
        "can't delete superusers",
        ["Can't delete superusers."],
      );
      for (const [user_id, email] of [
        [2, 'anonuser@localhost'],
        [3, 'dummyuser@localhost'],
      ] as const) {
        await refused(
          remove({ email, user_id, session_token: admin }),
          "can't edit, lock or delete the system anonymous/locked accounts (2, 3)",
          ["The system accounts can't be deleted."],
        );
      }
    });

    it('refuses missing and mistyped items', async () => {
      for (const body of [
        {},
        { user_id: 10, password: PASSWORD },
        { email: 'user10@example.org', password: PASSWORD },
        { email: 'user10@example.org', user_id: '10', password: PASSWORD },
        { email: 'user10@example.org', user_id: 10, password: 1 },
        { email: 'user10@example.org', user_id: 10, password: 'x'.repeat(10_000) },
        { email: ['user10@example.org'], user_id: 10, password: PASSWORD },
      ]) {
        const reply = await remove(body);
        assert.equal(reason(reply), 'invalid request parameters', JSON.stringify(body).slice(0, 80));
      }
    });
  });

  describe('user-delete timing', () => {
    /** A server of its own whose hash queue counts every hash and verification it runs. */
    let timed: TestServer;
    const counter = countingQueue();
    before(async () => {
      timed = await startTestServer({ database: db, hashQueue: counter.queue });
      const passwordHash = await testHasher.hash(PASSWORD);
      await insertUsers(timed.app.store, [
        { userId: 7, role: 'authenticated', passwordHash },
        { userId: 10, role: 'authenticated', passwordHash },
        { userId: 11, role: 'authenticated', passwordHash },
        { userId: 20, role: 'superuser', passwordHash },
      ]);
    });
    after(() => timed.close());

    it('runs exactly one verification on every password path, failing or not', async () => {
      const store = timed.app.store;
      await sqlOf(store)('users')
        .where('user_id', 11)
        .update({ locked_until: timeToDb(store.dialect, timed.clock.now() + 60_000) });
      const cases: Array<[string, Record<string, unknown>]> = [
        ['unknown user', { email: 'nobody@example.org', user_id: 999_999, password: PASSWORD }],
        ['email of another user', { email: 'user10@example.org', user_id: 7, password: PASSWORD }],
        ['wrong password', { email: 'user10@example.org', user_id: 10, password: 'wrong' }],
        ['temporarily locked', { email: 'user11@example.org', user_id: 11, password: PASSWORD }],
        ['superuser', { email: 'user20@example.org', user_id: 20, password: PASSWORD }],
        ['success', { email: 'user10@example.org', user_id: 10, password: PASSWORD }],
      ];
      for (const [label, body] of cases) {
        const runs = counter.runs();
        const reply = await timed.call('user-delete', body, label);
        assert.equal(reply.success, label === 'success', label);
        assert.equal(counter.runs() - runs, 1, label);
      }
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHashQueue, createHasher } from '../../src/accounts/password-hashing.js';
import { hashToken } from '../../src/domain/tokens.js';
import { GOOD_PASSWORD, countingQueue, openSession, signUp, storedUser, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

const DID_NOT_WORK = ["Sorry, that user ID and password combination didn't work."];
const MINUTE = 60_000;

forEachDatabase((db) => {
  describe('user-login', () => {
    let server: TestServer;
    const counter = countingQueue();
    before(async () => {
      server = await startTestServer({
        database: db,
        hashQueue: counter.queue,
        config: { userLockTries: 3, userLockTimeSeconds: 600 },
      });
    });
    after(() => server.close());

    const login = async (email: string, password: string) =>
      server.call('user-login', { session_token: await openSession(server), email, password });

    it('logs a verified user in (email case-insensitive) and ends the presented session', async () => {
      const userId = await verifiedUser(server, 'lou@example.org');
      const token = await openSession(server);
      const reply = await server.call('user-login', {
        session_token: token,
        email: 'LOU@Example.ORG',
        password: GOOD_PASSWORD,
      });
      assert.equal(reply.success, true);
      assert.deepEqual(reply.response, { user_id: userId, user_role: 'authenticated' });
      assert.deepEqual(reply.messages, ['Login successful.']);
      assert.equal((await server.call('session-exists', { session_token: token })).success, false, 'session fixation');
      const row = await storedUser(server, userId);
      assert.ok(row['last_login_success'] !== null);
      assert.equal(Number(row['failed_login_tries']), 0);
    });

    it('answers every failure with the same message; the reason is only in failure_reason', async () => {
      await verifiedUser(server, 'known@example.org');
      await signUp(server, 'unverified@example.org');
      const cases: Array<[string, string, string]> = [
        ['known@example.org', 'wrong password 1!', "user does not exist or password doesn't match"],
        ['nobody@example.org', GOOD_PASSWORD, "user does not exist or password doesn't match"],
        ['unverified@example.org', GOOD_PASSWORD, 'user exists but is inactive'],
      ];
      for (const [email, password, reason] of cases) {
        const token = await openSession(server);
        const reply = await server.call('user-login', { session_token: token, email, password });
        assert.equal(reply.success, false, email);
        assert.equal(!reply.success && reply.failure_reason, reason, email);
        assert.deepEqual(reply.messages, DID_NOT_WORK, email);
        assert.deepEqual(reply.response.user_id === null || typeof reply.response.user_id === 'number', true);
        assert.equal(
          (await server.call('session-exists', { session_token: token })).success,
          false,
          'the session ends on failure too',
        );
      }
    });

    it('refuses a login without a valid session', async () => {
      const reply = await server.call('user-login', {
        session_token: 'no-such-session',
        email: 'known@example.org',
        password: GOOD_PASSWORD,
      });
      assert.equal(!reply.success && reply.failure_reason, 'session does not exist or expired');
      assert.deepEqual(reply.messages, ['No session token provided.']);
    });

    it('locks an account temporarily after userlocktries failures, hides it from end users, and unlocks after userlocktime', async () => {
      const userId = await verifiedUser(server, 'lockme@example.org');
      const before = server.logs.length;
      for (let i = 1; i <= 3; i++) {
        const reply = await login('lockme@example.org', 'wrong password x');
        assert.equal(
          !reply.success && reply.failure_reason,
          "user does not exist or password doesn't match",
          `try ${i}`,
        );
      }
      const fourth = await login('lockme@example.org', 'wrong password x');
      assert.equal(!fourth.success && fourth.failure_reason, 'user is temporarily locked after too many failed logins');
      assert.deepEqual(fourth.messages, DID_NOT_WORK);
      const right = await login('lockme@example.org', GOOD_PASSWORD);
      assert.equal(
        !right.success && right.failure_reason,
        'user is temporarily locked after too many failed logins',
        'even the right password',
      );
      const row = await storedUser(server, userId);
      assert.equal(Number(row['failed_login_tries']), 5, 'attempts during the lock still count');
      assert.equal(server.logs.slice(before).filter((l) => l['audit'] === 'account.locked-out').length, 1);
      assert.equal(row['user_role'], 'authenticated', 'a temporary lock changes neither role nor activity');

      server.clock.advance(10 * MINUTE);
      const after = await login('lockme@example.org', GOOD_PASSWORD);
      assert.equal(after.success, true);
      assert.equal(Number((await storedUser(server, userId))['failed_login_tries']), 0);
    });

    it('restarts the count at 1 once a lock has expired', async () => {
      const userId = await verifiedUser(server, 'expire@example.org');
      for (let i = 0; i < 4; i++) await login('expire@example.org', 'wrong password x');
      server.clock.advance(10 * MINUTE);
      await login('expire@example.org', 'wrong password x');
      const row = await storedUser(server, userId);
      assert.equal(Number(row['failed_login_tries']), 1);
      assert.equal(row['locked_until'], null);
    });

    it('counts 20 concurrent wrong logins exactly and sets the lock once', async () => {
      const userId = await verifiedUser(server, 'storm@example.org');
      const before = server.logs.length;
      const tokens = await Promise.all(Array.from({ length: 20 }, () => openSession(server)));
      const replies = await Promise.all(
        tokens.map((session_token) =>
          server.call('user-login', { session_token, email: 'storm@example.org', password: 'wrong password x' }),
        ),
      );
      assert.ok(replies.every((r) => !r.success));
      assert.equal(Number((await storedUser(server, userId))['failed_login_tries']), 20);
      assert.equal(server.logs.slice(before).filter((l) => l['audit'] === 'account.locked-out').length, 1);
    });

    it('runs exactly one password verification on every failing path', async () => {
      await verifiedUser(server, 'timing@example.org');
      await signUp(server, 'timing-unverified@example.org');
      await verifiedUser(server, 'timing-locked@example.org');
      for (let i = 0; i < 4; i++) await login('timing-locked@example.org', 'wrong password x');
      const paths: Array<[string, () => Promise<unknown>]> = [
        ['unknown user', () => login('ghost@example.org', 'whatever it is')],
        ['wrong password', () => login('timing@example.org', 'wrong password x')],
        ['unverified user', () => login('timing-unverified@example.org', GOOD_PASSWORD)],
        ['temporarily locked', () => login('timing-locked@example.org', GOOD_PASSWORD)],
        [
          'no session',
          () => server.call('user-login', { session_token: 'nope', email: 'timing@example.org', password: 'x' }),
        ],
        ['passcheck without session', () => server.call('user-passcheck', { session_token: 'nope', password: 'x' })],
        [
          'passcheck-nosession, unknown user',
          () => server.call('user-passcheck-nosession', { email: 'ghost@example.org', password: 'x' }),
        ],
      ];
      for (const [label, run] of paths) {
        const runs = counter.runs();
        await run();
        assert.equal(counter.runs() - runs, 1, label);
      }
    });

    it('rehashes on login when the stored hash has other parameters', async () => {
      const userId = await verifiedUser(server, 'rehash@example.org');
      const old = await createHasher({ kind: 'argon2id', memoryCost: 2048, timeCost: 1, parallelism: 1 }).hash(
        GOOD_PASSWORD,
      );
      await sqlOf(server.app.store)('users').where('user_id', userId).update({ password: old });
      assert.equal((await login('rehash@example.org', GOOD_PASSWORD)).success, true);
      assert.match(String((await storedUser(server, userId))['password']), /m=1024,/);
    });

    it('answers 503 with Retry-After at once when the hash queue is full', async () => {
      const queue = createHashQueue({ concurrency: 1, maxWaiting: 0 });
      const busy = await startTestServer({ database: db, hashQueue: queue });
      try {
        let release: () => void = () => undefined;
        const occupied = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
        const token = await openSession(busy);
        const response = await busy.post(
          busy.seal({
            request: 'user-login',
            body: { session_token: token, email: 'a@example.org', password: 'x' },
            reqid: 1,
            client_ipaddr: '192.0.2.1',
          }),
        );
        assert.equal(response.status, 503);
        assert.equal(response.headers.get('retry-after'), '1');
        const reply = busy.open(await response.text()) as { success: boolean; failure_reason: string };
        assert.equal(reply.success, false);
        assert.equal(reply.failure_reason, 'server busy: too many password hashes waiting');
        release();
        await occupied;
      } finally {
        await busy.close();
      }
    });
  });

  describe('user-logout, user-passcheck, user-passcheck-nosession', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ database: db, config: { userLockTries: 2 } });
    });
    after(() => server.close());

    it("logs out: deletes the session, which must be the user's", async () => {
      const userId = await verifiedUser(server, 'out@example.org');
      const token = await openSession(server, userId);
      const other = await server.call('user-logout', { session_token: token, user_id: 1 });
      assert.equal(!other.success && other.failure_reason, 'the session belongs to another user');
      assert.deepEqual(other.messages, ['Logout failed. Invalid session_token for user_id.']);
      assert.equal(other.response.user_id, null, 'a failure names no user');
      const reply = await server.call('user-logout', { session_token: token, user_id: userId });
      assert.equal(reply.success, true);
      assert.deepEqual(reply.response, { user_id: userId });
      assert.deepEqual(reply.messages, ['Logout successful.']);
      const again = await server.call('user-logout', { session_token: token, user_id: userId });
      assert.equal(!again.success && again.failure_reason, 'session does not exist or expired');
      assert.equal(again.response.user_id, null);
      const rows = await sqlOf(server.app.store)('sessions').where('token_hash', hashToken(token));
      assert.equal(rows.length, 0);
    });

    it("checks the session user's password and keeps the session", async () => {
      const userId = await verifiedUser(server, 'check@example.org');
      const token = await openSession(server, userId);
      const reply = await server.call('user-passcheck', { session_token: token, password: GOOD_PASSWORD });
      assert.equal(reply.success, true);
      assert.deepEqual(reply.response, { user_id: userId, user_role: 'authenticated' });
      assert.deepEqual(reply.messages, ['Verification successful.']);
      const wrong = await server.call('user-passcheck', { session_token: token, password: 'nope nope nope' });
      assert.deepEqual(wrong.messages, DID_NOT_WORK);
      assert.equal((await server.call('session-exists', { session_token: token })).success, true);
    });

    it('checks email and password without a session; failures count towards the lock', async () => {
      const userId = await verifiedUser(server, 'nosession@example.org');
      const ok = await server.call('user-passcheck-nosession', {
        email: 'NoSession@example.org',
        password: GOOD_PASSWORD,
      });
      assert.deepEqual(ok.response, { user_id: userId, user_role: 'authenticated' });
      for (let i = 0; i < 3; i++)
        await server.call('user-passcheck-nosession', { email: 'nosession@example.org', password: 'bad bad bad' });
      const locked = await server.call('user-passcheck-nosession', {
        email: 'nosession@example.org',
        password: GOOD_PASSWORD,
      });
      assert.equal(!locked.success && locked.failure_reason, 'user is temporarily locked after too many failed logins');
    });
  });
});

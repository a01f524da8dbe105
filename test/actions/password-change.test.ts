import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { timeToDb } from '../../src/services/store/dialect.js';
import { GOOD_PASSWORD, openSession, storedUser, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';
import { CREDENTIAL_CHECK_COLUMNS } from '../helpers/refusals.js';

const NEW_PASSWORD = 'quartz-lantern-meadow-93';

forEachDatabase((db) => {
  describe('password changes and resets', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ database: db });
    });
    after(() => server.close());

    /** No-session API keys and a refresh token of the user, straight into their tables. */
    async function giveKeys(userId: number): Promise<void> {
      const t = (ms: number) => timeToDb(server.app.store.dialect, ms);
      const now = server.clock.now();
      const hex = (c: string) => c.repeat(64);
      await sqlOf(server.app.store)('apikeys_nosession').insert({
        tkn_hash: hex(String(userId % 10)),
        family_id: hex('f'),
        user_id: userId,
        user_role: 'authenticated',
        issuer: 'test',
        audience: 'api',
        subject: '["/"]',
        apiversion: 1,
        ip_address: '192.0.2.1',
        issued: t(now),
        not_valid_before: t(now),
        expires: t(now + 3_600_000),
      });
      await sqlOf(server.app.store)('refresh_tokens').insert({
        token_hash: hex(String((userId + 1) % 10)),
        family_id: hex('f'),
        apikey_hash: hex(String(userId % 10)),
        user_id: userId,
        issued: t(now),
        not_valid_before: t(now),
        expires: t(now + 3_600_000),
      });
    }
    const keysOf = async (userId: number) =>
      (await sqlOf(server.app.store)('apikeys_nosession').where('user_id', userId)).length +
      (await sqlOf(server.app.store)('refresh_tokens').where('user_id', userId)).length;
    const sessionAlive = async (token: string) =>
      (await server.call('session-exists', { session_token: token })).success;
    const canLogIn = async (email: string, password: string) =>
      (await server.call('user-passcheck-nosession', { email, password })).success;

    describe('user-changepass', () => {
      it("changes the password with the user's session, ends the other sessions and revokes no-session keys", async () => {
        const userId = await verifiedUser(server, 'change1@example.org');
        const [current, other] = [await openSession(server, userId), await openSession(server, userId)];
        await giveKeys(userId);
        const reply = await server.call('user-changepass', {
          user_id: userId,
          session_token: current,
          full_name: 'Jane Doe',
          email: 'Change1@example.org',
          current_password: GOOD_PASSWORD,
          new_password: NEW_PASSWORD,
        });
        assert.equal(reply.success, true, JSON.stringify(reply));
        assert.deepEqual(reply.response, { user_id: userId, email: 'change1@example.org' });
        assert.deepEqual(reply.messages, [
          'Password changed successfully.',
          'For security purposes, you have been logged out of all other sessions.',
        ]);
        assert.equal(await sessionAlive(current), true);
        assert.equal(await sessionAlive(other), false);
        assert.equal(await keysOf(userId), 0);
        assert.equal(await canLogIn('change1@example.org', NEW_PASSWORD), true);
        assert.equal(await canLogIn('change1@example.org', GOOD_PASSWORD), false);
      });

      it('refuses without a session of that user, with a wrong current password, the same or an insecure new one', async () => {
        const userId = await verifiedUser(server, 'change2@example.org');
        const mine = await openSession(server, userId);
        const theirs = await openSession(server, 1);
        const base = {
          user_id: userId,
          session_token: mine,
          full_name: 'Jane Doe',
          email: 'change2@example.org',
          current_password: GOOD_PASSWORD,
          new_password: NEW_PASSWORD,
        };
        // The right current password is a successful check: it writes only the check's own columns.
        const before = await server.digest(CREDENTIAL_CHECK_COLUMNS);
        const cases: Array<[Record<string, unknown>, string, string]> = [
          [
            { session_token: theirs },
            'session does not exist or expired',
            'Your session is not valid. Please log in again.',
          ],
          [
            { session_token: 'no-such-session' },
            'session does not exist or expired',
            'Your session is not valid. Please log in again.',
          ],
          [
            { new_password: GOOD_PASSWORD },
            'password did not change',
            'Your new password cannot be the same as your old password.',
          ],
        ];
        for (const [change, reason, message] of cases) {
          const reply = await server.call('user-changepass', { ...base, ...change });
          assert.equal(!reply.success && reply.failure_reason, reason, JSON.stringify(change));
          assert.deepEqual(reply.messages, [message]);
        }
        const insecure = await server.call('user-changepass', { ...base, new_password: 'short' });
        assert.equal(!insecure.success && insecure.failure_reason, 'password is insecure or invalid');
        assert.equal(
          insecure.messages.at(-1),
          'The new password you entered is insecure. It must be at least 12 characters long and be sufficiently complex.',
        );
        assert.equal(await server.digest(CREDENTIAL_CHECK_COLUMNS), before);

        // A wrong current password, or a user id and email that do not match, is a failed credential
        // check: one message, and counted (on the account, or on the dummy account 3).
        for (const change of [{ current_password: 'not it at all' }, { email: 'someone@example.org' }]) {
          const reply = await server.call('user-changepass', { ...base, ...change });
          assert.equal(!reply.success && reply.failure_reason, "user does not exist or password doesn't match");
          assert.deepEqual(reply.messages, ['Your current password did not match the stored password.']);
        }
        assert.equal(Number((await storedUser(server, userId))['failed_login_tries']), 1);
        assert.equal(await canLogIn('change2@example.org', GOOD_PASSWORD), true, 'the password is unchanged');
      });
    });

    describe('user-changepass-nosession', () => {
      it('changes the password with the current one and ends every session', async () => {
        const userId = await verifiedUser(server, 'change3@example.org');
        const session = await openSession(server, userId);
        const reply = await server.call('user-changepass-nosession', {
          user_id: userId,
          full_name: 'Jane Doe',
          email: 'change3@example.org',
          current_password: GOOD_PASSWORD,
          new_password: NEW_PASSWORD,
        });
        assert.equal(reply.success, true);
        assert.equal(await sessionAlive(session), false);
        assert.equal(await canLogIn('change3@example.org', NEW_PASSWORD), true);
      });
    });

    describe('user-resetpass', () => {
      it('replaces a forgotten password with any valid session, ending all sessions and no-session keys', async () => {
        const userId = await verifiedUser(server, 'reset1@example.org');
        const mine = await openSession(server, userId);
        const anonymous = await openSession(server);
        await giveKeys(userId);
        const reply = await server.call('user-resetpass', {
          email_address: 'RESET1@example.org',
          new_password: NEW_PASSWORD,
          session_token: anonymous,
        });
        assert.equal(reply.success, true);
        assert.deepEqual(reply.messages, ['Password changed successfully.']);
        assert.equal(await sessionAlive(mine), false);
        assert.equal(await keysOf(userId), 0);
        assert.equal(await canLogIn('reset1@example.org', NEW_PASSWORD), true);
      });

      it('refuses without a session, for an unknown or inactive user, the same password or an insecure one', async () => {
        await verifiedUser(server, 'reset2@example.org');
        const anonymous = await openSession(server);
        const before = await server.digest();
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ session_token: 'nope' }, 'session does not exist or expired'],
          [{ email_address: 'ghost@example.org' }, 'user does not exist'],
          [{ new_password: GOOD_PASSWORD }, 'password did not change'],
          [{ new_password: 'weak' }, 'password is insecure or invalid'],
        ];
        for (const [change, reason] of cases) {
          const reply = await server.call('user-resetpass', {
            email_address: 'reset2@example.org',
            new_password: NEW_PASSWORD,
            session_token: anonymous,
            ...change,
          });
          assert.equal(!reply.success && reply.failure_reason, reason, JSON.stringify(change));
        }
        assert.equal(await server.digest(), before);
      });
    });

    describe('user-resetpass-nosession', () => {
      it('replaces the password only when is_active equals required_active', async () => {
        const userId = await verifiedUser(server, 'reset3@example.org');
        const mismatch = await server.call('user-resetpass-nosession', {
          email_address: 'reset3@example.org',
          new_password: NEW_PASSWORD,
          required_active: false,
        });
        assert.equal(
          !mismatch.success && mismatch.failure_reason,
          'user does not exist or is_active was not as required',
        );
        const reply = await server.call('user-resetpass-nosession', {
          email_address: 'reset3@example.org',
          new_password: NEW_PASSWORD,
          required_active: true,
        });
        assert.equal(reply.success, true);
        assert.notEqual((await storedUser(server, userId))['password'], null);
        assert.equal(await canLogIn('reset3@example.org', NEW_PASSWORD), true);
      });
    });
  });
});

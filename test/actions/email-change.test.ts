/**
 * A stolen session alone never owns the account (docs/design.md#email-changes): changing one's own
 * email needs the password, the new address is unverified until user-set-emailverified confirms it,
 * and neither the forgot-password mail nor user-resetpass serves an unverified address. A superuser
 * may still correct someone's address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { failures } from '../../src/domain/errors.js';
import { GOOD_PASSWORD, openSession, storedUser, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startSink } from '../mail/smtp-sink.js';
import type { SmtpSink } from '../mail/smtp-sink.js';

const ATTACKER = 'attacker@example.net';
const NEW_PASSWORD = 'quarry-lantern-mossy-77';
const ADMIN = { email: 'admin@example.org', password: 'correct horse battery staple' };

forEachDatabase((db) => {
  describe('changing the email of an account', () => {
    let server: TestServer;
    let sink: SmtpSink;
    let n = 0;
    before(async () => {
      sink = await startSink();
      server = await startTestServer({
        database: db,
        config: {
          email: { server: '127.0.0.1', port: sink.port, user: '', pass: '', sender: 'a@example.org', tlsCa: null },
        },
      });
    });
    after(async () => {
      await server.close();
      await sink.close();
    });

    const victim = async () => {
      const email = `victim-${++n}@example.org`;
      const userId = await verifiedUser(server, email);
      return { userId, email, session: await openSession(server, userId) };
    };
    const editEmail = (
      by: { userId: number; session: string; role?: string },
      target: number,
      email: string,
      password?: string,
    ) =>
      server.call('user-edit', {
        user_id: by.userId,
        user_role: by.role ?? 'authenticated',
        session_token: by.session,
        target_userid: target,
        update_dict: { email },
        ...(password === undefined ? {} : { password }),
      });
    const forgotPass = async (email: string) =>
      server.call('user-sendemail-forgotpass', {
        email_address: email,
        session_token: await openSession(server),
        server_name: 'Example Server',
        server_baseurl: 'https://app.example.org/',
        verification_token: 'token',
        verification_expiry: 900,
        password_forgot_url: '/password/reset',
      });
    const resetPass = async (email: string) =>
      server.call('user-resetpass', {
        email_address: email,
        new_password: NEW_PASSWORD,
        session_token: await openSession(server),
      });

    it('refuses a change of one’s own email with the session alone, and with a wrong password', async () => {
      const user = await victim();
      const bare = await editEmail(user, user.userId, ATTACKER);
      assert.equal(bare.success, false, JSON.stringify(bare));
      assert.equal(bare.failure_reason, failures.invalid_params.reason);
      const wrong = await editEmail(user, user.userId, ATTACKER, 'not-the-password-9!');
      assert.equal(wrong.success, false);
      assert.equal(wrong.failure_reason, failures.wrong_credentials.reason);
      assert.deepEqual(wrong.messages, ['Your password did not match.']);
      const row = await storedUser(server, user.userId);
      assert.equal(row['email'], user.email, 'the address is unchanged');
      assert.equal(Number(row['failed_login_tries']), 1, 'the wrong password is counted');
    });

    it('a stolen session cannot reach a password reset: the new address waits for its confirmation', async () => {
      const user = await victim();
      // Even with the password (phished along with the session), the new address is not yet trusted.
      const moved = await editEmail(user, user.userId, ATTACKER, GOOD_PASSWORD);
      assert.equal(moved.success, true, JSON.stringify(moved));
      assert.equal(moved.success && moved.response.user_info?.email_verified, false);

      const mail = await forgotPass(ATTACKER);
      assert.equal(mail.success, false, 'no reset mail to an unverified address');
      assert.equal(mail.failure_reason, failures.email_ineligible.reason);
      assert.equal(sink.received.filter((r) => r.envelopeTo.includes(ATTACKER)).length, 0, 'nothing was sent');
      const reset = await resetPass(ATTACKER);
      assert.equal(reset.success, false, 'user-resetpass refuses an unverified address');
      const login = await server.call('user-passcheck-nosession', { email: ATTACKER, password: NEW_PASSWORD });
      assert.equal(login.success, false, 'the password is not the attacker’s');

      // A sign-up at the unverified address does not take the account over either.
      const signup = await server.call('user-new', { email: ATTACKER, password: NEW_PASSWORD, full_name: 'Mallory' });
      assert.equal(signup.success, false);
      assert.equal(signup.response.send_verification, false, 'an account in use is never refreshed by a sign-up');
      const row = await storedUser(server, user.userId);
      assert.equal(Boolean(row['is_active']), true);
      assert.equal(row['user_role'], 'authenticated');
    });

    it('keeps the account usable until the new address is confirmed, then serves it', async () => {
      const user = await victim();
      const address = `confirmed-${n}@example.org`;
      assert.equal((await editEmail(user, user.userId, address, GOOD_PASSWORD)).success, true);
      const login = await server.call('user-passcheck-nosession', { email: address, password: GOOD_PASSWORD });
      assert.equal(login.success, true, 'the password still opens the account under its new address');

      // The documented flow: the verification mail goes to the new address as at sign-up.
      const mail = await server.call('user-sendemail-signup', {
        email_address: address,
        session_token: user.session,
        server_name: 'Example Server',
        server_baseurl: 'https://app.example.org/',
        verification_token: 'change-token',
        verification_expiry: 900,
        account_verify_url: '/users/verify',
        created_info: { user_id: user.userId, send_verification: true },
      });
      assert.equal(mail.success, true, JSON.stringify(mail));
      assert.equal(
        sink.received.filter((r) => r.envelopeTo.includes(address)).length,
        1,
        'one mail to the new address',
      );

      const verified = await server.call('user-set-emailverified', { email: address });
      assert.equal(verified.success, true, JSON.stringify(verified));
      assert.equal(verified.response.user_role, 'authenticated', 'the role is unchanged');
      const row = await storedUser(server, user.userId);
      assert.equal(Boolean(row['email_verified']), true);
      assert.equal((await forgotPass(address)).success, true, 'a confirmed address gets the reset mail');
      assert.equal((await resetPass(address)).success, true);
    });

    it('needs no password when the address is unchanged', async () => {
      const user = await victim();
      const same = await editEmail(user, user.userId, user.email.toUpperCase());
      assert.equal(same.success, true, JSON.stringify(same));
      assert.equal(same.success && same.response.user_info?.email_verified, true);
    });

    it('lets a superuser correct someone else’s address without a password; verification unchanged', async () => {
      const user = await victim();
      const login = await server.call('user-login', {
        session_token: await openSession(server),
        email: ADMIN.email,
        password: ADMIN.password,
      });
      assert.equal(login.success, true);
      const admin = { userId: 1, session: await openSession(server, 1), role: 'superuser' };
      const corrected = await editEmail(admin, user.userId, `corrected-${n}@example.org`);
      assert.equal(corrected.success, true, JSON.stringify(corrected));
      assert.equal(corrected.success && corrected.response.user_info?.email_verified, true);
    });

    it('confirming an address never re-activates an account a superuser deactivated', async () => {
      const user = await victim();
      const address = `deactivated-${n}@example.org`;
      assert.equal((await editEmail(user, user.userId, address, GOOD_PASSWORD)).success, true);
      const admin = { userId: 1, session: await openSession(server, 1), role: 'superuser' };
      const off = await server.call('user-edit', {
        user_id: 1,
        user_role: 'superuser',
        session_token: admin.session,
        target_userid: user.userId,
        update_dict: { is_active: false },
      });
      assert.equal(off.success, true, JSON.stringify(off));
      await server.call('user-set-emailverified', { email: address });
      const row = await storedUser(server, user.userId);
      assert.equal(Boolean(row['is_active']), false, 'still deactivated');
    });
  });
});

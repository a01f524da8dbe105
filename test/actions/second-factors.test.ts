/**
 * Second factors through the real protocol (docs/design.md#second-factors): enrolling an authenticator app, the
 * login in two steps, recovery codes, step-up, removal as a revocation; on SQLite, PostgreSQL and MariaDB. The attacks
 * come first: a known password without the factor, a replayed code, a ticket used twice or from another session, a
 * ticket outliving a revocation, guessing codes, and another user's session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCodeAt } from '../../src/accounts/second-factor.js';
import { FAILURE_REASONS } from '../../src/protocol/failure-codes.js';
import { GOOD_PASSWORD, openSession, rowsOf, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

const STEP = 30_000;

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    // Users of role staff must have a second factor (mfarequired); the others are authenticated.
    server = await startTestServer({ database: db, config: { userLockTries: 10, mfaRequiredRoles: ['staff'] } });
  });
  after(() => server.close());

  let emails = 0;
  /** A verified user with an active authenticator app: its id, secret, recovery codes and a logged-in session. */
  async function enrolled() {
    const email = `mfa${++emails}@example.org`;
    const userId = await verifiedUser(server, email);
    const session = await openSession(server, userId);
    const started = await server.call('user-totp-new', { user_id: userId, session_token: session, name: 'phone' });
    assert.ok(started.success, JSON.stringify(started));
    const { factor_id: factorId, secret } = started.response;
    const confirmed = await server.call('user-totp-confirm', {
      user_id: userId,
      session_token: session,
      factor_id: factorId,
      code: totpCodeAt(secret, server.clock.now()),
    });
    assert.ok(confirmed.success, JSON.stringify(confirmed));
    // The enrolment used this step's code: move on so the next code is a new step.
    server.clock.advance(STEP);
    return { userId, email, secret, factorId, session, codes: confirmed.response.recovery_codes ?? [] };
  }

  const login = async (email: string, password = GOOD_PASSWORD) => {
    const session = await openSession(server);
    const reply = await server.call('user-login', { session_token: session, email, password });
    return { session, reply };
  };
  const ticketOf = (reply: { success: boolean; response: object }): string => {
    assert.equal(reply.success, false);
    const ticket = (reply.response as { login_ticket?: string }).login_ticket;
    assert.ok(ticket !== undefined, JSON.stringify(reply));
    return ticket;
  };
  const secondStep = (session: string, ticket: string, code: string, method: 'totp' | 'recovery' = 'totp') =>
    server.call('user-login-secondfactor', { session_token: session, login_ticket: ticket, method, code });
  /** user-stepup with the code the app shows now. */
  const stepUp = (userId: number, session: string, secret: string) =>
    server.call('user-stepup', {
      user_id: userId,
      session_token: session,
      method: 'totp',
      code: totpCodeAt(secret, server.clock.now()),
    });
  const sessionExists = async (token: string) =>
    (await server.call('session-exists', { session_token: token })).success;

  describe('enrolling an authenticator app', () => {
    it('gives a pending factor with its secret, otpauth URI and QR code; a code activates it with 10 recovery codes', async () => {
      const userId = await verifiedUser(server, 'enrol@example.org');
      const session = await openSession(server, userId);
      const started = await server.call('user-totp-new', { user_id: userId, session_token: session, name: 'phone' });
      assert.ok(started.success, JSON.stringify(started));
      const { factor_id, secret, otpauth_uri, qr_svg } = started.response;
      assert.match(secret, /^[A-Z2-7]{32}$/);
      assert.ok(otpauth_uri.startsWith('otpauth://totp/'));
      assert.equal(new URL(otpauth_uri).searchParams.get('issuer'), 'authsvc.test');
      assert.match(qr_svg, /^<svg/);
      const pending = await server.call('user-factor-list', { user_id: userId, session_token: session });
      assert.ok(pending.success);
      assert.deepEqual(
        pending.response.factors.map((f) => [f.factor_id, f.kind, f.name, f.active]),
        [[factor_id, 'totp', 'phone', false]],
      );
      // A pending factor is not a second factor yet: the login is as before.
      assert.equal((await login('enrol@example.org')).reply.success, true);

      const wrong = await server.call('user-totp-confirm', {
        user_id: userId,
        session_token: session,
        factor_id,
        code: totpCodeAt(secret, server.clock.now() + 5 * STEP),
      });
      assert.equal(!wrong.success && wrong.failure_reason, 'the second factor did not verify');
      const confirmed = await server.call('user-totp-confirm', {
        user_id: userId,
        session_token: session,
        factor_id,
        code: totpCodeAt(secret, server.clock.now()),
      });
      assert.ok(confirmed.success, JSON.stringify(confirmed));
      assert.equal(confirmed.response.recovery_codes?.length, 10);
      const listed = await server.call('user-factor-list', { user_id: userId, session_token: session });
      assert.ok(listed.success);
      assert.equal(listed.response.factors[0]?.active, true);
      assert.equal(listed.response.recovery_codes_left, 10);
      assert.ok(server.logs.some((l) => l['audit'] === 'factor.added'));
    });

    it('keeps the secret sealed in the database', async () => {
      const { userId, secret } = await enrolled();
      const rows = (await sqlOf(server.app.store)('user_factors').where('user_id', userId)) as Array<{
        secret: string;
      }>;
      assert.equal(rows.length, 1);
      assert.ok(!rows[0]?.secret.includes(secret));
    });

    it("refuses another user's session, and a factor that is not pending", async () => {
      const { userId, session, factorId, secret } = await enrolled();
      const other = await verifiedUser(server, 'other-enrol@example.org');
      const otherSession = await openSession(server, other);
      for (const action of ['user-factor-list', 'user-totp-new', 'user-recoverycodes-new'] as const) {
        const reply = await server.call(action, { user_id: userId, session_token: otherSession, name: 'x' });
        assert.equal(!reply.success && reply.failure_reason, 'the session belongs to another user', action);
      }
      const again = await server.call('user-totp-confirm', {
        user_id: userId,
        session_token: session,
        factor_id: factorId,
        code: totpCodeAt(secret, server.clock.now()),
      });
      assert.equal(!again.success && again.failure_reason, 'the user has no such factor');
    });
  });

  describe('a login in two steps', () => {
    it('answers the right password with second_factor_required, a ticket and the methods; the session stays', async () => {
      const { email } = await enrolled();
      const { session, reply } = await login(email);
      assert.equal(reply.success, false);
      assert.equal(!reply.success && reply.failure_reason, FAILURE_2FA);
      assert.equal(reply.response.user_id, null);
      assert.deepEqual(reply.response.methods, ['totp', 'recovery']);
      assert.match(ticketOf(reply), /^[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(reply.messages, [
        'Please finish signing in with your authenticator app, a recovery code or a passkey.',
      ]);
      assert.equal(await sessionExists(session), true);
    });

    it('a wrong password still fails as before, with no ticket', async () => {
      const { email } = await enrolled();
      const { reply } = await login(email, 'not the password at all');
      assert.equal(!reply.success && reply.failure_reason, "user does not exist or password doesn't match");
      assert.equal((reply.response as { login_ticket?: string }).login_ticket, undefined);
    });

    it('the second step with a code answers what user-login answers and ends the presented session', async () => {
      const { email, secret, userId } = await enrolled();
      const { session, reply } = await login(email);
      const done = await secondStep(session, ticketOf(reply), totpCodeAt(secret, server.clock.now()));
      assert.ok(done.success, JSON.stringify(done));
      assert.deepEqual(done.response, { user_id: userId, user_role: 'authenticated' });
      assert.deepEqual(done.messages, ['Login successful.']);
      assert.equal(await sessionExists(session), false);
    });

    it('refuses a code used once already (each time step once), even with a new ticket', async () => {
      const { email, secret } = await enrolled();
      const code = totpCodeAt(secret, server.clock.now());
      const first = await login(email);
      assert.ok((await secondStep(first.session, ticketOf(first.reply), code)).success);
      const second = await login(email);
      const replayed = await secondStep(second.session, ticketOf(second.reply), code);
      assert.equal(!replayed.success && replayed.failure_reason, 'the second factor did not verify');
      // A code of an earlier step than the last one used is refused too.
      const earlier = await secondStep(
        second.session,
        ticketOf(second.reply),
        totpCodeAt(secret, server.clock.now() - STEP),
      );
      assert.equal(earlier.success, false);
    });

    it('a ticket is single use, bound to its session, and dies after 5 minutes', async () => {
      const { email, secret } = await enrolled();
      const { session, reply } = await login(email);
      const ticket = ticketOf(reply);
      const elsewhere = await openSession(server);
      const wrongSession = await secondStep(elsewhere, ticket, totpCodeAt(secret, server.clock.now()));
      assert.equal(!wrongSession.success && wrongSession.failure_reason, FAILURE_TICKET);
      assert.ok((await secondStep(session, ticket, totpCodeAt(secret, server.clock.now()))).success);
      server.clock.advance(STEP);
      const reused = await secondStep(elsewhere, ticket, totpCodeAt(secret, server.clock.now()));
      assert.equal(!reused.success && reused.failure_reason, FAILURE_TICKET);

      const late = await login(email);
      server.clock.advance(5 * 60_000 + 1);
      const expired = await secondStep(late.session, ticketOf(late.reply), totpCodeAt(secret, server.clock.now()));
      assert.equal(!expired.success && expired.failure_reason, FAILURE_TICKET);
    });

    it('a ticket dies at its 5th wrong code, and wrong codes count toward the lock like wrong passwords', async () => {
      const { email, secret, userId } = await enrolled();
      const { session, reply } = await login(email);
      const ticket = ticketOf(reply);
      for (let i = 0; i < 5; i++) assert.equal((await secondStep(session, ticket, '000000')).success, false);
      const dead = await secondStep(session, ticket, totpCodeAt(secret, server.clock.now()));
      assert.equal(!dead.success && dead.failure_reason, FAILURE_TICKET);
      const [row] = (await sqlOf(server.app.store)('users').where('user_id', userId)) as Array<{
        failed_login_tries: number;
      }>;
      assert.equal(row?.failed_login_tries, 5);
      // The right password does not reset the count while the second factor is pending.
      // Past userlocktries (10) wrong checks, the account locks, as it would after 11 wrong passwords.
      const again = await login(email);
      for (let i = 0; i < 5; i++) await secondStep(again.session, ticketOf(again.reply), '111111');
      const last = await login(email);
      await secondStep(last.session, ticketOf(last.reply), '222222');
      const locked = await login(email);
      assert.equal(!locked.reply.success && locked.reply.failure_reason, FAILURE_LOCKED);
      assert.ok(server.logs.some((l) => l['audit'] === 'account.locked-out'));
    });

    it('a recovery code logs in once, whatever its case and separators', async () => {
      const { email, codes, userId, session: own } = await enrolled();
      const code = codes[0] ?? '';
      const first = await login(email);
      const done = await secondStep(first.session, ticketOf(first.reply), code.toUpperCase(), 'recovery');
      assert.ok(done.success, JSON.stringify(done));
      const listed = await server.call('user-factor-list', { user_id: userId, session_token: own });
      assert.equal(listed.success && listed.response.recovery_codes_left, 9);
      const second = await login(email);
      const spent = await secondStep(second.session, ticketOf(second.reply), code, 'recovery');
      assert.equal(!spent.success && spent.failure_reason, 'the second factor did not verify');
    });

    it('two second steps with one ticket: exactly one wins', async () => {
      const { email, secret, codes } = await enrolled();
      const { session, reply } = await login(email);
      const ticket = ticketOf(reply);
      const replies = await Promise.all([
        secondStep(session, ticket, totpCodeAt(secret, server.clock.now())),
        secondStep(session, ticket, codes[1] ?? '', 'recovery'),
        secondStep(session, ticket, totpCodeAt(secret, server.clock.now())),
      ]);
      assert.equal(replies.filter((r) => r.success).length, 1, JSON.stringify(replies));
    });

    it('user-passcheck-nosession gives a ticket bound to no session; user-passcheck keeps and steps up its session', async () => {
      const { email, secret, userId, session: own } = await enrolled();
      const checked = await server.call('user-passcheck-nosession', { email, password: GOOD_PASSWORD });
      const any = await openSession(server);
      const done = await secondStep(any, ticketOf(checked), totpCodeAt(secret, server.clock.now()));
      assert.deepEqual(done.success && done.response, { user_id: userId, user_role: 'authenticated' });
      assert.equal(await sessionExists(any), true);

      server.clock.advance(STEP);
      const passcheck = await server.call('user-passcheck', { session_token: own, password: GOOD_PASSWORD });
      assert.ok((await secondStep(own, ticketOf(passcheck), totpCodeAt(secret, server.clock.now()))).success);
      assert.equal(await sessionExists(own), true);
      // That proved the factor on this session: it may change the password now.
      const changed = await changepass(userId, email, own);
      assert.ok(changed.success, JSON.stringify(changed));
    });

    it('a ticket issued before a revocation does not cross it', async () => {
      const { email, secret, userId } = await enrolled();
      const { session, reply } = await login(email);
      await server.app.store.apiKeys.revokeForUser(userId, { sessions: 'none' });
      const refused = await secondStep(session, ticketOf(reply), totpCodeAt(secret, server.clock.now()));
      assert.equal(!refused.success && refused.failure_reason, FAILURE_TICKET);
    });

    it('a user without a second factor logs in in one step, as before', async () => {
      await verifiedUser(server, 'plain@example.org');
      const { reply } = await login('plain@example.org');
      assert.equal(reply.success, true, JSON.stringify(reply));
    });
  });

  const changepass = (userId: number, email: string, session: string) =>
    server.call('user-changepass', {
      user_id: userId,
      session_token: session,
      full_name: 'Jane Doe',
      email,
      current_password: GOOD_PASSWORD,
      new_password: 'a-brand-new-passphrase-77',
    });

  describe('step-up', () => {
    it('changing the password needs a factor proved on this session within stepupwindow', async () => {
      const { userId, email, secret } = await enrolled();
      const session = await openSession(server, userId);
      const refused = await changepass(userId, email, session);
      assert.equal(!refused.success && refused.failure_reason, FAILURE_STEPUP);
      const stepped = await stepUp(userId, session, secret);
      assert.ok(stepped.success, JSON.stringify(stepped));
      server.clock.advance(600_000 + 1);
      const stale = await changepass(userId, email, session);
      assert.equal(!stale.success && stale.failure_reason, FAILURE_STEPUP);
      const again = await stepUp(userId, session, secret);
      assert.ok(again.success);
      assert.ok((await changepass(userId, email, session)).success);
    });

    it("another session's proof does not count, nor does the no-session action", async () => {
      const { userId, email, secret, session: stepped } = await enrolled();
      assert.ok((await stepUp(userId, stepped, secret)).success);
      const other = await openSession(server, userId);
      const refused = await changepass(userId, email, other);
      assert.equal(!refused.success && refused.failure_reason, FAILURE_STEPUP);
      const nosession = await server.call('user-changepass-nosession', {
        user_id: userId,
        full_name: 'Jane Doe',
        email,
        current_password: GOOD_PASSWORD,
        new_password: 'a-brand-new-passphrase-77',
      });
      assert.equal(!nosession.success && nosession.failure_reason, FAILURE_STEPUP);
    });

    it('user-stepup refuses wrong codes (counted) and users without a factor', async () => {
      const { userId, session } = await enrolled();
      const wrong = await server.call('user-stepup', {
        user_id: userId,
        session_token: session,
        method: 'totp',
        code: '123456',
      });
      assert.equal(!wrong.success && wrong.failure_reason, 'the second factor did not verify');
      const plain = await verifiedUser(server, 'nofactor@example.org');
      const plainSession = await openSession(server, plain);
      const none = await server.call('user-stepup', {
        user_id: plain,
        session_token: plainSession,
        method: 'totp',
        code: '123456',
      });
      assert.equal(
        !none.success && none.failure_reason,
        'the user has no active second factor (of the kind asked for: a passkey, for passkey options)',
      );
    });
  });

  describe('managing factors', () => {
    it('the session that enrolled may remove the factor at once; with none left, logins are one step again', async () => {
      const { userId, email, factorId, session } = await enrolled();
      // The enrolment proved the factor on this session 30 s ago: still fresh.
      const removed = await server.call('user-factor-delete', {
        user_id: userId,
        session_token: session,
        factor_id: factorId,
      });
      assert.ok(removed.success, JSON.stringify(removed));
      const listed = await server.call('user-factor-list', { user_id: userId, session_token: session });
      assert.deepEqual(listed.success && listed.response, { factors: [], recovery_codes_left: 0 });
      // No factor left: logins are one step again.
      assert.equal((await login(email)).reply.success, true);
    });

    it('removing needs a fresh proof once stepupwindow has passed; other sessions and tickets end', async () => {
      const { userId, email, secret, factorId, session } = await enrolled();
      const other = await openSession(server, userId);
      const pending = await login(email);
      server.clock.advance(600_000 + 1);
      const refused = await server.call('user-factor-delete', {
        user_id: userId,
        session_token: session,
        factor_id: factorId,
      });
      assert.equal(!refused.success && refused.failure_reason, FAILURE_STEPUP);
      assert.ok((await stepUp(userId, session, secret)).success);
      const removed = await server.call('user-factor-delete', {
        user_id: userId,
        session_token: session,
        factor_id: factorId,
      });
      assert.ok(removed.success, JSON.stringify(removed));
      assert.equal(await sessionExists(other), false);
      assert.equal(await sessionExists(session), true);
      const dead = await secondStep(pending.session, ticketOf(pending.reply), totpCodeAt(secret, server.clock.now()));
      assert.equal(!dead.success && dead.failure_reason, FAILURE_TICKET);
      assert.ok(server.logs.some((l) => l['audit'] === 'factor.removed'));
      assert.deepEqual(await rowsOf(server.app.store, userId), {
        users: 1,
        sessions: 1,
        apikeys: 0,
        apikeys_nosession: 0,
        refresh_tokens: 0,
      });
    });

    it('new recovery codes replace the old ones', async () => {
      const { userId, email, codes, session } = await enrolled();
      const renewed = await server.call('user-recoverycodes-new', { user_id: userId, session_token: session });
      assert.ok(renewed.success, JSON.stringify(renewed));
      assert.equal(renewed.response.recovery_codes.length, 10);
      const { session: loginSession, reply } = await login(email);
      const old = await secondStep(loginSession, ticketOf(reply), codes[0] ?? '', 'recovery');
      assert.equal(old.success, false);
      const fresh = await login(email);
      const done = await secondStep(
        fresh.session,
        ticketOf(fresh.reply),
        renewed.response.recovery_codes[0] ?? '',
        'recovery',
      );
      assert.ok(done.success, JSON.stringify(done));
    });

    it("a superuser resets another user's factors: the password alone logs in again, and everything else of theirs ends", async () => {
      const { userId, email, session } = await enrolled();
      const admin = await openSession(server, 1);
      const superuser = { user_id: 1, user_role: 'superuser', session_token: admin };
      const reset = await server.call('user-factors-reset', { ...superuser, target_userid: userId });
      assert.ok(reset.success, JSON.stringify(reset));
      assert.equal(reset.response.removed_factors, 1);
      assert.equal(await sessionExists(session), false);
      assert.equal((await login(email)).reply.success, true);
      assert.ok(server.logs.some((l) => l['audit'] === 'factors.reset'));

      const someone = await verifiedUser(server, 'not-a-superuser@example.org');
      const theirs = await openSession(server, someone);
      const refusals = [
        [
          { user_id: someone, user_role: 'authenticated', session_token: theirs, target_userid: userId },
          'not_superuser',
        ],
        [{ ...superuser, target_userid: 1 }, 'self_lock'],
        [{ ...superuser, target_userid: 2 }, 'system_account'],
        [{ ...superuser, target_userid: 99_999 }, 'user_not_found'],
        [{ ...superuser, user_role: 'superuser', session_token: theirs, target_userid: userId }, 'session_mismatch'],
      ] as const;
      for (const [body, code] of refusals) {
        const reply = await server.call('user-factors-reset', body);
        assert.equal(reply.success, false, code);
        assert.equal(!reply.success && reply.failure_reason, FAILURE_REASONS[code], code);
      }
    });

    it('refuses bad input', async () => {
      for (const [action, body] of [
        ['user-totp-new', { user_id: 'x', session_token: 'a', name: 'n' }],
        ['user-totp-confirm', { user_id: 4, session_token: 'a', factor_id: 'f' }],
        ['user-login-secondfactor', { session_token: 'a', login_ticket: 't', method: 'sms', code: '1' }],
        ['user-stepup', { user_id: 4, session_token: 'a', method: 'totp' }],
        ['user-factor-delete', { user_id: 4, session_token: 'a' }],
        ['user-factor-list', { session_token: 'a' }],
        ['user-recoverycodes-new', { user_id: 0, session_token: 'a' }],
        ['user-factors-reset', { user_id: 1, user_role: 'superuser', session_token: 'a' }],
      ] as const) {
        const reply = await server.call(action, body);
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', action);
      }
    });
  });

  describe('mfarequired: roles that must have a second factor', () => {
    const staff = async (email: string) => {
      const userId = await verifiedUser(server, email);
      await sqlOf(server.app.store)('users').where('user_id', userId).update({ user_role: 'staff' });
      return userId;
    };
    const login = async (email: string) => {
      const session = await openSession(server);
      return {
        session,
        reply: await server.call('user-login', { session_token: session, email, password: GOOD_PASSWORD }),
      };
    };

    it('a user of such a role without a factor gets a ticket that adds a first factor and finishes the login', async () => {
      const userId = await staff('staff1@example.org');
      const { session, reply } = await login('staff1@example.org');
      assert.equal(!reply.success && reply.failure_reason, FAILURE_ENROL);
      const ticket = (reply.response as { login_ticket?: string }).login_ticket ?? '';
      assert.deepEqual((reply.response as { methods?: string[] }).methods, []);

      const elsewhere = await openSession(server);
      const wrongSession = await server.call('user-totp-new', {
        session_token: elsewhere,
        login_ticket: ticket,
        name: 'x',
      });
      assert.equal(!wrongSession.success && wrongSession.failure_reason, FAILURE_TICKET);
      const started = await server.call('user-totp-new', {
        session_token: session,
        login_ticket: ticket,
        name: 'phone',
      });
      assert.ok(started.success, JSON.stringify(started));
      const confirmed = await server.call('user-totp-confirm', {
        session_token: session,
        login_ticket: ticket,
        factor_id: started.response.factor_id,
        code: totpCodeAt(started.response.secret, server.clock.now()),
      });
      assert.ok(confirmed.success, JSON.stringify(confirmed));
      assert.equal(confirmed.response.user_id, userId);
      assert.equal(confirmed.response.user_role, 'staff');
      assert.equal(confirmed.response.recovery_codes?.length, 10);
      assert.equal((await server.call('session-exists', { session_token: session })).success, false);

      // Spent; and from now on the login asks for the factor.
      server.clock.advance(STEP);
      const again = await server.call('user-totp-new', { session_token: session, login_ticket: ticket, name: 'y' });
      assert.equal(again.success, false);
      const next = await login('staff1@example.org');
      assert.equal(!next.reply.success && next.reply.failure_reason, FAILURE_2FA);
    });

    it('a second-step ticket never adds a factor, and other roles log in in one step', async () => {
      await staff('staff2@example.org');
      const { session, reply } = await login('staff2@example.org');
      const ticket = (reply.response as { login_ticket?: string }).login_ticket ?? '';
      const started = await server.call('user-totp-new', { session_token: session, login_ticket: ticket, name: 'a' });
      assert.ok(started.success);
      await server.call('user-totp-confirm', {
        session_token: session,
        login_ticket: ticket,
        factor_id: started.response.factor_id,
        code: totpCodeAt(started.response.secret, server.clock.now()),
      });
      server.clock.advance(STEP);
      const second = await login('staff2@example.org');
      const secondTicket = (second.reply.response as { login_ticket?: string }).login_ticket ?? '';
      const refused = await server.call('user-totp-new', {
        session_token: second.session,
        login_ticket: secondTicket,
        name: 'b',
      });
      assert.equal(!refused.success && refused.failure_reason, FAILURE_TICKET);

      await verifiedUser(server, 'member@example.org');
      assert.equal((await login('member@example.org')).reply.success, true);
      const neither = await server.call('user-totp-new', { session_token: second.session, name: 'c' });
      assert.equal(!neither.success && neither.failure_reason, 'invalid request parameters');
    });
  });
});

const FAILURE_ENROL =
  "the password is right; the user's role needs a second factor: add one with the login_ticket (user-totp-new)";
const FAILURE_2FA = 'the password is right; the user has a second factor: finish with user-login-secondfactor';
const FAILURE_TICKET = 'login ticket unknown, expired, spent, revoked, out of tries or for another session';
const FAILURE_LOCKED = 'user is temporarily locked after too many failed logins';
const FAILURE_STEPUP = 'this needs a second factor proved on this session within stepupwindow (user-stepup)';

/**
 * Passkeys through the real protocol (docs/design.md#passkeys), with a software authenticator that answers as a
 * browser would: registering, a passkey as the second step of a login and as a step-up, a login with a passkey alone;
 * on SQLite, PostgreSQL and MariaDB. The attacks come first: a response replayed, answered for another session or
 * from another origin, a counter that did not grow, another user's passkey, no user verification for a passwordless
 * login, guessing, and a locked account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { totpCodeAt } from '../../src/accounts/second-factor.js';
import { GOOD_PASSWORD, openSession, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { SoftAuthenticator, withBadSignature } from '../helpers/soft-authenticator.js';
import { sqlOf } from '../helpers/sql.js';

const ORIGIN = 'http://localhost:3000';
const PASSKEYS = { rpId: 'localhost', rpName: 'authsvc test', origins: [ORIGIN] };
const LOCK_TRIES = 10;

const reasonOf = (reply: { success: boolean; failure_reason?: string }) =>
  reply.success ? 'success' : reply.failure_reason;

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    // Users of role staff must have a second factor (mfarequired).
    server = await startTestServer({
      database: db,
      config: { userLockTries: LOCK_TRIES, passkeys: PASSKEYS, mfaRequiredRoles: ['staff'] },
    });
  });
  after(() => server.close());

  let emails = 0;
  const newUser = async () => {
    const email = `passkey${++emails}@example.org`;
    const userId = await verifiedUser(server, email);
    return { email, userId, session: await openSession(server, userId) };
  };

  async function registrationOptions(userId: number, session: string) {
    const reply = await server.call('user-passkey-options', {
      session_token: session,
      purpose: 'register',
      user_id: userId,
    });
    assert.ok(reply.success, JSON.stringify(reply));
    return reply.response.options as unknown as PublicKeyCredentialCreationOptionsJSON;
  }
  async function requestOptions(body: Record<string, unknown>) {
    const reply = await server.call('user-passkey-options', body);
    assert.ok(reply.success, JSON.stringify(reply));
    return reply.response.options as unknown as PublicKeyCredentialRequestOptionsJSON;
  }
  /** A user with a registered passkey (their first factor) and the authenticator holding it. */
  async function withPasskey() {
    const user = await newUser();
    const authenticator = new SoftAuthenticator();
    const response = authenticator.register(await registrationOptions(user.userId, user.session), { origin: ORIGIN });
    const reply = await server.call('user-passkey-register', {
      user_id: user.userId,
      session_token: user.session,
      name: 'laptop',
      response: response as never,
    });
    assert.ok(reply.success, JSON.stringify(reply));
    return { ...user, authenticator, factorId: reply.response.factor_id, codes: reply.response.recovery_codes ?? [] };
  }
  /** A password login's first step: its session and ticket. */
  async function firstStep(email: string) {
    const session = await openSession(server);
    const reply = await server.call('user-login', { session_token: session, email, password: GOOD_PASSWORD });
    assert.equal(
      reasonOf(reply),
      'the password is right; the user has a second factor: finish with user-login-secondfactor',
    );
    const ticket = (reply.response as { login_ticket?: string }).login_ticket ?? '';
    return { session, ticket, methods: (reply.response as { methods?: string[] }).methods };
  }
  /** A passwordless login: options for any discoverable passkey, answered by `authenticator`. */
  async function passkeyLogin(authenticator: SoftAuthenticator, ceremony: { uv?: boolean; counter?: number } = {}) {
    const session = await openSession(server);
    const options = await requestOptions({ session_token: session, purpose: 'login' });
    const response = authenticator.authenticate(options, { origin: ORIGIN, ...ceremony });
    return {
      session,
      response,
      reply: await server.call('user-login-passkey', { session_token: session, response: response as never }),
    };
  }

  describe('attacks', () => {
    it('refuses a response replayed: each challenge works once', async () => {
      const user = await newUser();
      const authenticator = new SoftAuthenticator();
      const response = authenticator.register(await registrationOptions(user.userId, user.session), { origin: ORIGIN });
      const body = { user_id: user.userId, session_token: user.session, name: 'a', response: response as never };
      assert.equal(reasonOf(await server.call('user-passkey-register', body)), 'success');
      assert.equal(
        reasonOf(await server.call('user-passkey-register', body)),
        'the passkey did not verify: challenge unknown, spent or for another session, or a wrong origin, relying party, signature, counter or user',
      );
      const login = await passkeyLogin(authenticator);
      assert.equal(reasonOf(login.reply), 'success');
      const session = await openSession(server);
      const replayed = await server.call('user-login-passkey', {
        session_token: session,
        response: login.response as never,
      });
      assert.equal(replayed.success, false);
    });

    it("refuses a challenge answered on another session, another user's passkey, and another origin", async () => {
      const victim = await withPasskey();
      const attacker = await withPasskey();
      // Options asked for on the attacker's login page, answered on another session.
      const page = await openSession(server);
      const options = await requestOptions({ session_token: page, purpose: 'login' });
      const elsewhere = await openSession(server);
      const moved = victim.authenticator.authenticate(options, { origin: ORIGIN });
      assert.equal(
        (await server.call('user-login-passkey', { session_token: elsewhere, response: moved as never })).success,
        false,
      );

      // The attacker knows the victim's password: the second step needs the victim's passkey, not theirs.
      const step = await firstStep(victim.email);
      const stepOptions = await requestOptions({
        session_token: step.session,
        purpose: 'secondfactor',
        login_ticket: step.ticket,
      });
      assert.throws(
        () => attacker.authenticator.authenticate(stepOptions, { origin: ORIGIN }),
        /NotAllowedError|no credential/i,
      );
      const own = await requestOptions({
        session_token: attacker.session,
        purpose: 'stepup',
        user_id: attacker.userId,
      });
      const theirs = attacker.authenticator.authenticate(own, { origin: ORIGIN });
      const crossed = await server.call('user-login-secondfactor', {
        session_token: step.session,
        login_ticket: step.ticket,
        method: 'passkey',
        response: theirs as never,
      });
      assert.equal(reasonOf(crossed), 'the second factor did not verify');

      // A phishing site's origin.
      const phishing = await openSession(server);
      const phishOptions = await requestOptions({ session_token: phishing, purpose: 'login' });
      const phished = victim.authenticator.authenticate(phishOptions, { origin: 'https://evil.example' });
      assert.equal(
        (await server.call('user-login-passkey', { session_token: phishing, response: phished as never })).success,
        false,
      );
    });

    it('refuses a counter that did not grow (a cloned authenticator) and audits it', async () => {
      const user = await withPasskey();
      assert.equal(reasonOf((await passkeyLogin(user.authenticator)).reply), 'success');
      assert.equal(reasonOf((await passkeyLogin(user.authenticator)).reply), 'success');
      const cloned = await passkeyLogin(user.authenticator, { counter: 1 });
      assert.equal(cloned.reply.success, false);
      const audited = server.logs.find((l) => l['audit'] === 'passkey.counter-decreased');
      assert.ok(audited, 'passkey.counter-decreased audited');
      assert.equal(reasonOf((await passkeyLogin(user.authenticator)).reply), 'success');
    });

    it('refuses a passwordless login without user verification, a bad signature, and an unknown passkey', async () => {
      const user = await withPasskey();
      assert.equal((await passkeyLogin(user.authenticator, { uv: false })).reply.success, false);
      const session = await openSession(server);
      const options = await requestOptions({ session_token: session, purpose: 'login' });
      const forged = withBadSignature(user.authenticator.authenticate(options, { origin: ORIGIN }));
      assert.equal(
        (await server.call('user-login-passkey', { session_token: session, response: forged as never })).success,
        false,
      );
      const stranger = new SoftAuthenticator();
      const other = await newUser();
      stranger.register(await registrationOptions(other.userId, other.session), { origin: ORIGIN });
      // Registered with the authenticator but never with the server.
      assert.equal((await passkeyLogin(stranger)).reply.success, false);
    });

    it('counts failed passkeys like wrong passwords: the account locks, and a locked account refuses the right passkey', async () => {
      const user = await withPasskey();
      // The lock starts at the failure after userlocktries of them.
      for (let i = 0; i <= LOCK_TRIES; i++) {
        const { reply } = await passkeyLogin(user.authenticator, { uv: false });
        assert.equal(reply.success, false);
      }
      assert.ok(server.logs.some((l) => l['audit'] === 'account.locked-out'));
      const locked = await passkeyLogin(user.authenticator);
      assert.equal(reasonOf(locked.reply), 'user is temporarily locked after too many failed logins');
    });

    it('refuses a passkey login for a locked or unverified account', async () => {
      const user = await withPasskey();
      await sqlOf(server.app.store)('users').where('user_id', user.userId).update({ user_role: 'locked' });
      assert.equal((await passkeyLogin(user.authenticator)).reply.success, false);
      await sqlOf(server.app.store)('users')
        .where('user_id', user.userId)
        .update({ user_role: 'authenticated', is_active: false });
      assert.equal((await passkeyLogin(user.authenticator)).reply.success, false);
    });

    it('needs a fresh second factor to add a passkey when the user has a factor', async () => {
      const user = await withPasskey();
      const fresh = await openSession(server, user.userId);
      const reply = await server.call('user-passkey-options', {
        session_token: fresh,
        purpose: 'register',
        user_id: user.userId,
      });
      assert.equal(
        reasonOf(reply),
        'this needs a second factor proved on this session within stepupwindow (user-stepup)',
      );
      const other = await newUser();
      const mismatch = await server.call('user-passkey-options', {
        session_token: other.session,
        purpose: 'register',
        user_id: user.userId,
      });
      assert.equal(reasonOf(mismatch), 'the session belongs to another user');
    });
  });

  describe('registering', () => {
    it('stores a verified passkey as the first factor, with 10 recovery codes, and lists it', async () => {
      const user = await withPasskey();
      assert.equal(user.codes.length, 10);
      const listed = await server.call('user-factor-list', { user_id: user.userId, session_token: user.session });
      assert.ok(listed.success);
      assert.deepEqual(
        listed.response.factors.map((f) => [f.factor_id, f.kind, f.name, f.active]),
        [[user.factorId, 'passkey', 'laptop', true]],
      );
      assert.equal(listed.response.recovery_codes_left, 10);
      assert.ok(server.logs.some((l) => l['audit'] === 'factor.added'));
      // The registration options exclude the passkeys the user has (after a step-up, which registering gave).
      const again = await registrationOptions(user.userId, user.session);
      assert.deepEqual(
        again.excludeCredentials?.map((c) => c.id),
        [user.authenticator.credentials[0]?.id],
      );
      assert.equal(again.rp.id, 'localhost');
      assert.equal(again.user.name, user.email);
      assert.equal(again.attestation, 'none');
    });

    it('refuses a response of another ceremony, and one registered twice', async () => {
      const user = await newUser();
      const authenticator = new SoftAuthenticator();
      // A login challenge is not a registration challenge.
      const loginOptions = await requestOptions({ session_token: user.session, purpose: 'login' });
      const registration = await registrationOptions(user.userId, user.session);
      const forged = authenticator.register({ ...registration, challenge: loginOptions.challenge }, { origin: ORIGIN });
      const reply = await server.call('user-passkey-register', {
        user_id: user.userId,
        session_token: user.session,
        name: 'x',
        response: forged as never,
      });
      assert.equal(reply.success, false);
    });
  });

  describe('a role that must have a second factor', () => {
    it('enrols a passkey with the login’s ticket, which finishes the login', async () => {
      const user = await newUser();
      await sqlOf(server.app.store)('users').where('user_id', user.userId).update({ user_role: 'staff' });
      const page = await openSession(server);
      const first = await server.call('user-login', {
        session_token: page,
        email: user.email,
        password: GOOD_PASSWORD,
      });
      assert.equal(
        reasonOf(first),
        "the password is right; the user's role needs a second factor: add one with the login_ticket (user-totp-new)",
      );
      const ticket = (first.response as { login_ticket?: string }).login_ticket ?? '';
      const options = await server.call('user-passkey-options', {
        session_token: page,
        purpose: 'register',
        login_ticket: ticket,
      });
      assert.ok(options.success, JSON.stringify(options));
      const authenticator = new SoftAuthenticator();
      const made = authenticator.register(options.response.options as never, { origin: ORIGIN });
      // The ticket works only on the login's session.
      const elsewhere = await server.call('user-passkey-register', {
        session_token: user.session,
        login_ticket: ticket,
        name: 'laptop',
        response: made as never,
      });
      assert.equal(
        reasonOf(elsewhere),
        'login ticket unknown, expired, spent, revoked, out of tries or for another session',
      );
      const done = await server.call('user-passkey-register', {
        session_token: page,
        login_ticket: ticket,
        name: 'laptop',
        response: made as never,
      });
      assert.ok(done.success, JSON.stringify(done));
      assert.equal(done.response.user_id, user.userId);
      assert.equal(done.response.user_role, 'staff');
      assert.equal(done.response.recovery_codes?.length, 10);
      assert.equal((await server.call('session-exists', { session_token: page })).success, false);
      // From now on the login asks for the passkey.
      const next = await firstStep(user.email);
      assert.deepEqual(next.methods, ['passkey', 'recovery']);
    });
  });

  describe('a login in two steps with a passkey', () => {
    it('names passkey among the methods, gives options for the user’s passkeys, and logs in', async () => {
      const user = await withPasskey();
      const step = await firstStep(user.email);
      assert.deepEqual(step.methods, ['passkey', 'recovery']);
      const options = await requestOptions({
        session_token: step.session,
        purpose: 'secondfactor',
        login_ticket: step.ticket,
      });
      assert.deepEqual(
        options.allowCredentials?.map((c) => c.id),
        [user.authenticator.credentials[0]?.id],
      );
      const response = user.authenticator.authenticate(options, { origin: ORIGIN, uv: false });
      const reply = await server.call('user-login-secondfactor', {
        session_token: step.session,
        login_ticket: step.ticket,
        method: 'passkey',
        response: response as never,
      });
      assert.ok(reply.success, JSON.stringify(reply));
      assert.equal(reply.response.user_id, user.userId);
      // As after user-login, the login page's session ended; the ticket is spent.
      assert.equal((await server.call('session-exists', { session_token: step.session })).success, false);
      const spent = await server.call('user-passkey-options', {
        session_token: await openSession(server),
        purpose: 'secondfactor',
        login_ticket: step.ticket,
      });
      assert.equal(
        reasonOf(spent),
        'login ticket unknown, expired, spent, revoked, out of tries or for another session',
      );
    });

    it('refuses options for a ticket of another session, and a passkey step without its response', async () => {
      const user = await withPasskey();
      const step = await firstStep(user.email);
      const other = await openSession(server);
      const reply = await server.call('user-passkey-options', {
        session_token: other,
        purpose: 'secondfactor',
        login_ticket: step.ticket,
      });
      assert.equal(
        reasonOf(reply),
        'login ticket unknown, expired, spent, revoked, out of tries or for another session',
      );
      const missing = await server.call('user-login-secondfactor', {
        session_token: step.session,
        login_ticket: step.ticket,
        method: 'passkey',
      });
      assert.equal(reasonOf(missing), 'invalid request parameters');
    });
  });

  describe('step-up with a passkey', () => {
    it('steps a session up, which may then change the password', async () => {
      const user = await withPasskey();
      const session = await openSession(server, user.userId);
      const options = await requestOptions({ session_token: session, purpose: 'stepup', user_id: user.userId });
      const response = user.authenticator.authenticate(options, { origin: ORIGIN });
      const reply = await server.call('user-stepup', {
        user_id: user.userId,
        session_token: session,
        method: 'passkey',
        response: response as never,
      });
      assert.ok(reply.success, JSON.stringify(reply));
      assert.ok(reply.response.stepped_up_until !== null);
      const changepass = {
        user_id: user.userId,
        session_token: session,
        full_name: 'Passkey Holder',
        email: user.email,
        current_password: GOOD_PASSWORD,
        new_password: 'another passphrase of some length 42',
      };
      // Without the step-up the change is refused; with it, it goes through.
      const other = await openSession(server, user.userId);
      assert.equal(
        reasonOf(await server.call('user-changepass', { ...changepass, session_token: other })),
        'this needs a second factor proved on this session within stepupwindow (user-stepup)',
      );
      const changed = await server.call('user-changepass', changepass);
      assert.ok(changed.success, JSON.stringify(changed));
    });

    it('refuses stepup options for a user without a passkey', async () => {
      const user = await newUser();
      const reply = await server.call('user-passkey-options', {
        session_token: user.session,
        purpose: 'stepup',
        user_id: user.userId,
      });
      assert.equal(
        reasonOf(reply),
        'the user has no active second factor (of the kind asked for: a passkey, for passkey options)',
      );
    });
  });

  describe('a login with a passkey alone', () => {
    it('answers what user-login answers and ends the login page’s session', async () => {
      const user = await withPasskey();
      const { session, reply } = await passkeyLogin(user.authenticator);
      assert.ok(reply.success, JSON.stringify(reply));
      assert.equal(reply.response.user_id, user.userId);
      assert.equal(reply.response.user_role, 'authenticated');
      assert.equal((await server.call('session-exists', { session_token: session })).success, false);
      assert.ok(server.logs.some((l) => l['audit'] === 'login.succeeded' && l['action'] === 'user-login-passkey'));
    });

    it('works with a passkey added next to an authenticator app, and ends when the passkey is removed', async () => {
      const user = await newUser();
      const started = await server.call('user-totp-new', {
        user_id: user.userId,
        session_token: user.session,
        name: 'phone',
      });
      assert.ok(started.success);
      const confirmed = await server.call('user-totp-confirm', {
        user_id: user.userId,
        session_token: user.session,
        factor_id: started.response.factor_id,
        code: totpCodeAt(started.response.secret, server.clock.now()),
      });
      assert.ok(confirmed.success);
      const authenticator = new SoftAuthenticator();
      const response = authenticator.register(await registrationOptions(user.userId, user.session), { origin: ORIGIN });
      const added = await server.call('user-passkey-register', {
        user_id: user.userId,
        session_token: user.session,
        name: 'key',
        response: response as never,
      });
      assert.ok(added.success, JSON.stringify(added));
      assert.equal(added.response.recovery_codes, undefined, 'not the first factor: no new recovery codes');
      assert.equal(reasonOf((await passkeyLogin(authenticator)).reply), 'success');
      const removed = await server.call('user-factor-delete', {
        user_id: user.userId,
        session_token: user.session,
        factor_id: added.response.factor_id ?? '',
      });
      assert.ok(removed.success, JSON.stringify(removed));
      assert.equal((await passkeyLogin(authenticator)).reply.success, false);
    });
  });

  describe('each failure', () => {
    it('answers session_not_found for a session that does not exist, on every passkey action', async () => {
      const gone = 'x'.repeat(43);
      for (const [action, body] of [
        ['user-passkey-options', { session_token: gone, purpose: 'login' }],
        ['user-passkey-options', { session_token: gone, purpose: 'register', user_id: 4 }],
        ['user-passkey-register', { user_id: 4, session_token: gone, name: 'x', response: { id: 'x' } }],
        ['user-login-passkey', { session_token: gone, response: { id: 'x' } }],
      ] as const) {
        const reply = await server.call(action, body);
        assert.equal(reasonOf(reply), 'session does not exist or expired', action);
      }
    });

    it("refuses to register on another user's session, and without a step-up gained since the options", async () => {
      const user = await newUser();
      const other = await newUser();
      const authenticator = new SoftAuthenticator();
      const made = authenticator.register(await registrationOptions(user.userId, user.session), { origin: ORIGIN });
      const body = { user_id: user.userId, name: 'x', response: made as never };
      const mismatch = await server.call('user-passkey-register', { ...body, session_token: other.session });
      assert.equal(reasonOf(mismatch), 'the session belongs to another user');
      // A factor added on another session after the options were made: registering now needs a step-up here.
      const elsewhere = await openSession(server, user.userId);
      const started = await server.call('user-totp-new', {
        user_id: user.userId,
        session_token: elsewhere,
        name: 'app',
      });
      assert.ok(started.success);
      const confirmed = await server.call('user-totp-confirm', {
        user_id: user.userId,
        session_token: elsewhere,
        factor_id: started.response.factor_id,
        code: totpCodeAt(started.response.secret, server.clock.now()),
      });
      assert.ok(confirmed.success);
      const late = await server.call('user-passkey-register', { ...body, session_token: user.session });
      assert.equal(
        reasonOf(late),
        'this needs a second factor proved on this session within stepupwindow (user-stepup)',
      );
    });

    it('refuses an eleventh factor', async () => {
      const user = await withPasskey();
      for (let i = 1; i < 10; i++) {
        // Another authenticator each time: one that holds a passkey of the user refuses to make a second.
        const made = new SoftAuthenticator().register(await registrationOptions(user.userId, user.session), {
          origin: ORIGIN,
        });
        const added = await server.call('user-passkey-register', {
          user_id: user.userId,
          session_token: user.session,
          name: `key ${String(i)}`,
          response: made as never,
        });
        assert.ok(added.success, JSON.stringify(added));
      }
      const full = await server.call('user-passkey-options', {
        session_token: user.session,
        purpose: 'register',
        user_id: user.userId,
      });
      assert.equal(reasonOf(full), 'the user has as many factors as allowed');
    });
  });

  describe('bad input', () => {
    it('refuses missing and malformed items', async () => {
      const session = await openSession(server);
      for (const [action, body] of [
        ['user-passkey-options', { session_token: session, purpose: 'nope' }],
        ['user-passkey-options', { session_token: session, purpose: 'stepup' }],
        ['user-passkey-options', { session_token: session, purpose: 'secondfactor' }],
        ['user-passkey-register', { user_id: 1, session_token: session, name: 'x' }],
        ['user-passkey-register', { user_id: 1, session_token: session, name: 'x', response: 'text' }],
        ['user-login-passkey', { session_token: session }],
        ['user-login-passkey', { session_token: session, response: [1] }],
        ['user-stepup', { user_id: 1, session_token: session, method: 'passkey' }],
      ] as const) {
        const reply = await server.call(action, body);
        assert.equal(reasonOf(reply), 'invalid request parameters', `${action} ${JSON.stringify(body)}`);
      }
    });

    it('answers a response of the right types but no sense with a failure, not an error', async () => {
      const session = await openSession(server);
      for (const response of [
        {},
        { id: 'x', response: {} },
        { id: 'x', response: { clientDataJSON: '!!!' } },
        { id: 'x', response: { clientDataJSON: Buffer.from('{"challenge":5}').toString('base64url') } },
      ]) {
        const reply = await server.call('user-login-passkey', { session_token: session, response: response as never });
        assert.equal(
          reasonOf(reply),
          'the passkey did not verify: challenge unknown, spent or for another session, or a wrong origin, relying party, signature, counter or user',
        );
      }
    });
  });
});

describe('passkeys off', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers passkeys_off to every passkey action when no origins are configured', async () => {
    const session = await openSession(server);
    for (const [action, body] of [
      ['user-passkey-options', { session_token: session, purpose: 'login' }],
      ['user-passkey-register', { user_id: 4, session_token: session, name: 'x', response: {} }],
      ['user-login-passkey', { session_token: session, response: {} }],
    ] as const) {
      const reply = await server.call(action, body);
      assert.equal(reasonOf(reply), 'passkeys are off on this server (no passkeyorigins)', action);
    }
  });
});

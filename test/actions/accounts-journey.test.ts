/**
 * One account's whole life over the real protocol: sign-up → verify → login → passcheck → change
 * password → logout → lock → unlock → reset, on every database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const FIRST = 'plinth-orchard-vapour-42';
const SECOND = 'quartz-lantern-meadow-93';
const THIRD = 'saffron-harbour-kettle-58';
const ADMIN = { email: 'admin@example.org', password: 'correct horse battery staple' };

forEachDatabase((db) => {
  describe('an account from sign-up to reset', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ database: db });
    });
    after(() => server.close());

    async function session(userId: number | null): Promise<string> {
      const reply = await server.call('session-new', {
        ip_address: '198.51.100.7',
        user_agent: 'journey',
        user_id: userId,
        expires: 1,
        extra_info_json: {},
      });
      assert.ok(reply.success);
      return reply.response.session_token;
    }
    /** Logs in through a fresh anonymous session, then opens the user's session, as a frontend does. */
    async function logIn(
      email: string,
      password: string,
    ): Promise<{ userId: number; role: string; token: string } | null> {
      const reply = await server.call('user-login', { session_token: await session(null), email, password });
      if (!reply.success) return null;
      const userId = reply.response.user_id;
      return { userId, role: reply.response.user_role, token: await session(userId) };
    }

    it('lives through every state', async () => {
      const signup = await server.call('user-new', {
        full_name: 'Ada Journey',
        email: 'Ada@Example.org',
        password: FIRST,
      });
      assert.equal(signup.success, true);
      assert.equal(signup.response.send_verification, true);
      const userId = signup.response.user_id;
      assert.equal(await logIn('ada@example.org', FIRST), null, 'unverified: no login');

      const verified = await server.call('user-set-emailverified', { email: 'ada@example.org' });
      assert.equal(verified.success, true);
      assert.deepEqual([verified.response.user_role, verified.response.is_active], ['authenticated', true]);

      const ada = await logIn('ADA@example.org', FIRST);
      assert.ok(ada);
      assert.deepEqual([ada.userId, ada.role], [userId, 'authenticated']);
      const check = await server.call('user-passcheck', { session_token: ada.token, password: FIRST });
      assert.equal(check.success, true);

      const other = await session(userId);
      const changed = await server.call('user-changepass', {
        user_id: userId,
        session_token: ada.token,
        full_name: 'Ada Journey',
        email: 'ada@example.org',
        current_password: FIRST,
        new_password: SECOND,
      });
      assert.equal(changed.success, true);
      assert.equal(
        (await server.call('session-exists', { session_token: other })).success,
        false,
        'other sessions end',
      );
      assert.equal(await logIn('ada@example.org', FIRST), null);

      const out = await server.call('user-logout', { session_token: ada.token, user_id: userId });
      assert.equal(out.success, true);
      assert.equal((await server.call('session-exists', { session_token: ada.token })).success, false);

      const again = await logIn('ada@example.org', SECOND);
      assert.ok(again);
      const admin = await logIn(ADMIN.email, ADMIN.password);
      assert.ok(admin);
      const initiator = {
        user_id: admin.userId,
        user_role: admin.role,
        session_token: admin.token,
        target_userid: userId,
      };
      const locked = await server.call('user-lock', { ...initiator, action: 'lock' });
      assert.equal(locked.success, true, JSON.stringify(locked));
      assert.equal(
        (await server.call('session-exists', { session_token: again.token })).success,
        false,
        'a lock ends sessions',
      );
      assert.equal(await logIn('ada@example.org', SECOND), null, 'locked: no login');
      const stillLocked = await server.call('user-set-emailverified', { email: 'ada@example.org' });
      assert.equal(stillLocked.response.is_active, false, 'verification never re-activates a locked account');

      const unlocked = await server.call('user-lock', { ...initiator, action: 'unlock' });
      assert.equal(unlocked.success, true);
      const back = await logIn('ada@example.org', SECOND);
      assert.ok(back);
      assert.equal(back.role, 'authenticated', 'the previous role returns');

      const reset = await server.call('user-resetpass', {
        email_address: 'ada@example.org',
        new_password: THIRD,
        session_token: await session(null),
      });
      assert.equal(reset.success, true);
      assert.equal(
        (await server.call('session-exists', { session_token: back.token })).success,
        false,
        'a reset ends sessions',
      );
      assert.equal(await logIn('ada@example.org', SECOND), null);
      assert.ok(await logIn('ada@example.org', THIRD));
    });
  });
});

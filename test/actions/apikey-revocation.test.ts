/**
 * Keys end with what they hang on (issue 12): a lock, a deactivation or role change (user-edit,
 * internal-user-edit), a password change or reset and a deletion revoke a user's keys and refresh
 * tokens; user-changepass keeps the current session and its keys.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { GOOD_PASSWORD, openSession, rowsOf, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

type Dict = Record<string, unknown>;
const NEW_PASSWORD = 'quartz-meadow-lantern-77';

forEachDatabase((db) => {
  let server: TestServer;
  let admin: string;
  let serial = 0;
  before(async () => {
    server = await startTestServer({ database: db });
    admin = await openSession(server, 1);
  });
  after(() => server.close());

  interface Armed {
    readonly userId: number;
    readonly email: string;
    readonly sessions: readonly [string, string];
    readonly tied: readonly [Dict, Dict];
    readonly free: Dict;
  }

  /** A verified user with two sessions, a session-tied key on each, and a no-session key. */
  async function armed(): Promise<Armed> {
    const email = `keys${++serial}@example.org`;
    const userId = await verifiedUser(server, email);
    const sessions = [await openSession(server, userId), await openSession(server, userId)] as const;
    const tied = [];
    for (const session of sessions) {
      const reply = await server.call('apikey-new', {
        issuer: 'f',
        audience: 'a',
        subject: 's',
        apiversion: 1,
        expires_days: 1,
        not_valid_before: 0,
        user_id: userId,
        user_role: 'authenticated',
        ip_address: '198.51.100.20',
        user_agent: 'test agent',
        session_token: session,
      });
      assert.ok(reply.success, JSON.stringify(reply));
      tied.push(JSON.parse(reply.response.apikey) as Dict);
    }
    const free = await server.call('apikey-new-nosession', {
      issuer: 'f',
      audience: 'a',
      subject: 's',
      apiversion: 1,
      expires_seconds: 60,
      not_valid_before: 0,
      refresh_expires: 600,
      refresh_nbf: 0,
      user_id: userId,
      user_role: 'authenticated',
      ip_address: '198.51.100.20',
    });
    assert.ok(free.success, JSON.stringify(free));
    return {
      userId,
      email,
      sessions,
      tied: tied as unknown as [Dict, Dict],
      free: JSON.parse(free.response.apikey) as Dict,
    };
  }

  /** Which keys still verify (as the superuser, so the user's own standing does not matter). */
  async function alive(user: Armed): Promise<[boolean, boolean, boolean]> {
    const check = async (action: 'apikey-verify' | 'apikey-verify-nosession', dict: Dict) =>
      (await server.call(action, { apikey_dict: dict, user_id: 1, user_role: 'superuser' })).success;
    return [
      await check('apikey-verify', user.tied[0]),
      await check('apikey-verify', user.tied[1]),
      await check('apikey-verify-nosession', user.free),
    ];
  }

  const edit = (action: 'user-edit' | 'internal-user-edit', target: number, update: Dict) =>
    action === 'user-edit'
      ? server.call('user-edit', {
          user_id: 1,
          user_role: 'superuser',
          session_token: admin,
          target_userid: target,
          update_dict: update,
        })
      : server.call('internal-user-edit', { target_userid: target, update_dict: update });

  it('starts with every key alive', async () => {
    assert.deepEqual(await alive(await armed()), [true, true, true]);
  });

  it('user-lock revokes every key and refresh token', async () => {
    const user = await armed();
    const reply = await server.call('user-lock', {
      user_id: 1,
      user_role: 'superuser',
      session_token: admin,
      target_userid: user.userId,
      action: 'lock',
    });
    assert.ok(reply.success, JSON.stringify(reply));
    assert.deepEqual(await alive(user), [false, false, false]);
    const rows = await rowsOf(server.app.store, user.userId);
    assert.deepEqual([rows['apikeys'], rows['apikeys_nosession'], rows['refresh_tokens']], [0, 0, 0]);
  });

  for (const action of ['user-edit', 'internal-user-edit'] as const) {
    it(`${action}: is_active false or a new role revokes everything; other edits revoke nothing`, async () => {
      const renamed = await armed();
      assert.ok((await edit(action, renamed.userId, { full_name: 'New Name' })).success);
      assert.deepEqual(await alive(renamed), [true, true, true]);
      const inactive = await armed();
      assert.ok((await edit(action, inactive.userId, { is_active: false })).success);
      assert.deepEqual(await alive(inactive), [false, false, false]);
      const left = await rowsOf(server.app.store, inactive.userId);
      assert.deepEqual(
        [left['sessions'], left['apikeys'], left['apikeys_nosession'], left['refresh_tokens']],
        [0, 0, 0, 0],
      );
      const promoted = await armed();
      const reply = await edit(action, promoted.userId, { user_role: 'staff' });
      assert.ok(reply.success, JSON.stringify(reply));
      assert.deepEqual(await alive(promoted), [false, false, false]);
      const rows = await rowsOf(server.app.store, promoted.userId);
      assert.deepEqual([rows['sessions'], rows['refresh_tokens']], [0, 0]);
    });
  }

  it('user-changepass keeps the current session and its key; the rest is revoked', async () => {
    const user = await armed();
    const reply = await server.call('user-changepass', {
      user_id: user.userId,
      session_token: user.sessions[0],
      full_name: 'Jane Doe',
      email: user.email,
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    assert.ok(reply.success, JSON.stringify(reply));
    assert.deepEqual(await alive(user), [true, false, false]);
  });

  it('user-resetpass-nosession and user-delete revoke everything', async () => {
    const reset = await armed();
    const reply = await server.call('user-resetpass-nosession', {
      email_address: reset.email,
      new_password: NEW_PASSWORD,
      required_active: true,
    });
    assert.ok(reply.success, JSON.stringify(reply));
    assert.deepEqual(await alive(reset), [false, false, false]);
    const deleted = await armed();
    const gone = await server.call('user-delete', {
      email: deleted.email,
      user_id: deleted.userId,
      password: GOOD_PASSWORD,
      session_token: deleted.sessions[0],
    });
    assert.ok(gone.success, JSON.stringify(gone));
    assert.deepEqual(await alive(deleted), [false, false, false]);
  });
});

/**
 * The failed-login counter through two worker processes sharing one database: a mutex inside one
 * process cannot hide a lost update here (DESIGN quality bar). 20 concurrent wrong logins must count
 * exactly 20 and set the lock once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from '../../src/store/index.js';
import { forEachDatabase, urlOf } from '../helpers/databases.js';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';
import type { AuthsvcProcess } from '../helpers/process.js';
import { sqlOf } from '../helpers/sql.js';

async function call(
  server: AuthsvcProcess,
  action: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await postOnce(server.url, server.seal(action, body));
  assert.equal(result.status, 200, result.text);
  return server.open(result.text);
}

forEachDatabase((db) => {
  describe('--workers 2: the failed-login counter', () => {
    it('counts 20 concurrent wrong logins exactly and sets the lock once', async () => {
      const target = await db.fresh();
      const server = await spawnAuthsvc({
        workers: 2,
        env: {
          AUTHSVC_AUTHDB: urlOf(target),
          AUTHSVC_PWNEDURL: 'none',
          AUTHSVC_SERVERNAME: 'authsvc.test',
          AUTHSVC_PASSHASH: 'argon2id:m=1024,t=1,p=1',
        },
      });
      const store = openStore(target);
      try {
        const signup = await call(server, 'user-new', {
          email: 'storm@example.org',
          password: 'plinth-orchard-vapour-42',
          full_name: 'Storm Test',
        });
        assert.equal(signup['success'], true, JSON.stringify(signup));
        const userId = (signup['response'] as { user_id: number }).user_id;
        await sqlOf(store)('users')
          .where('user_id', userId)
          .update({ email_verified: true, is_active: true, user_role: 'authenticated' });

        const sessions = await Promise.all(
          Array.from({ length: 20 }, async () => {
            const opened = await call(server, 'session-new', {
              ip_address: '192.0.2.1',
              user_agent: 'ua',
              user_id: null,
              expires: 1,
              extra_info_json: {},
            });
            return (opened['response'] as { session_token: string }).session_token;
          }),
        );
        const replies = await Promise.all(
          sessions.map((session_token) =>
            call(server, 'user-login', { session_token, email: 'storm@example.org', password: 'not the password' }),
          ),
        );
        assert.ok(replies.every((r) => r['success'] === false));
        const row: { failed_login_tries: unknown; locked_until: unknown } = await sqlOf(store)('users')
          .where('user_id', userId)
          .first('failed_login_tries', 'locked_until');
        assert.equal(Number(row.failed_login_tries), 20);
        assert.notEqual(row.locked_until, null);
        assert.equal(server.logs.filter((l) => l['audit'] === 'account.locked-out').length, 1);
      } finally {
        await store.close();
        await server.stop();
      }
    });
  });
});

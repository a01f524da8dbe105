/**
 * Races through two worker processes sharing one database, on every database: a mutex inside one
 * process cannot hide a lost update here. 50 simultaneous wrong logins count exactly 50 and lock the
 * account once; 20 simultaneous sign-ups of one address make one account; 10 simultaneous refreshes
 * of one token give exactly one new key, round after round.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/index.js';
import { forEachDatabase } from '../../helpers/databases.js';
import { postOnce } from '../../helpers/process.js';
import type { AuthsvcProcess } from '../../helpers/process.js';
import { sqlOf } from '../../helpers/sql.js';
import { spawnOn } from '../../helpers/suite.js';
import { insertUsers } from '../../helpers/users.js';

const PASSWORD = 'plinth-orchard-vapour-42';
const LOGINS = 50;
const SIGNUPS = 20;
const REFRESHERS = 10;
const REFRESH_ROUNDS = 8;

forEachDatabase((db) => {
  describe('--workers 2 under simultaneous requests', () => {
    let server: AuthsvcProcess;
    let store: Store;
    before(async () => {
      const target = await db.fresh();
      server = await spawnOn(target, { workers: 2 });
      store = openStore(target);
    });
    after(async () => {
      await store.close();
      await server.stop();
    });

    /** Each request on a connection of its own, so the two workers share them. */
    const call = async (action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const result = await postOnce(server.url, server.seal(action, body));
      // Anything but 200 is a failure here: say what the reply and the server's warnings said.
      if (result.status !== 200) {
        const warnings = server.logs.filter((l) => l['level'] === 'warn' || l['level'] === 'error');
        assert.fail(
          `HTTP ${result.status} to ${action}: ${JSON.stringify(server.open(result.text))}; logged: ${JSON.stringify(warnings.slice(-5))}`,
        );
      }
      return server.open(result.text);
    };

    it(`counts ${LOGINS} simultaneous wrong logins exactly and locks the account once`, async (t) => {
      const signup = await call('user-new', { email: 'storm@example.org', password: PASSWORD, full_name: 'Storm' });
      assert.equal(signup['success'], true, JSON.stringify(signup));
      const userId = (signup['response'] as { user_id: number }).user_id;
      await sqlOf(store)('users')
        .where('user_id', userId)
        .update({ email_verified: true, is_active: true, user_role: 'authenticated' });
      const sessions = await Promise.all(
        Array.from({ length: LOGINS }, async () => {
          const opened = await call('session-new', {
            ip_address: '192.0.2.1',
            user_agent: 'ua',
            user_id: null,
            expires: 1,
            extra_info_json: {},
          });
          return (opened['response'] as { session_token: string }).session_token;
        }),
      );
      // Each worker admits a bounded number of waiting password hashes and answers the rest 503 "server
      // busy" at once (admission control): those never check the password and must not count.
      const answers = await Promise.all(
        sessions.map((session_token) =>
          postOnce(
            server.url,
            server.seal('user-login', { session_token, email: 'storm@example.org', password: 'not the password' }),
          ),
        ),
      );
      const replies = answers.map((a) => ({ status: a.status, reply: server.open(a.text) }));
      const checked = replies.filter((r) => r.status === 200);
      const turnedAway = replies.filter((r) => r.status === 503);
      assert.equal(checked.length + turnedAway.length, LOGINS, 'only 200 and 503');
      assert.ok(checked.every((r) => r.reply['success'] === false));
      assert.deepEqual(
        turnedAway.filter((r) => r.reply['failure_reason'] !== 'server busy: too many password hashes waiting'),
        [],
      );
      assert.ok(checked.length >= 20, `${checked.length} of ${LOGINS} were checked`);
      const row: { failed_login_tries: unknown; locked_until: unknown } = await sqlOf(store)('users')
        .where('user_id', userId)
        .first('failed_login_tries', 'locked_until');
      t.diagnostic(
        `${LOGINS} simultaneous wrong logins: ${checked.length} checked, ${turnedAway.length} turned away busy; ` +
          `counter ${String(row.failed_login_tries)}`,
      );
      assert.equal(Number(row.failed_login_tries), checked.length, 'the counter counts every check, exactly');
      assert.notEqual(row.locked_until, null);
      assert.equal(server.logs.filter((l) => l['audit'] === 'account.locked-out').length, 1, 'one lock-out');
    });

    it(`makes one account of ${SIGNUPS} simultaneous sign-ups of one address`, async () => {
      const replies = await Promise.all(
        Array.from({ length: SIGNUPS }, (_, i) =>
          call('user-new', { email: 'Race@Example.org', password: PASSWORD, full_name: `Racer ${i}` }),
        ),
      );
      const won = replies.filter((r) => r['success'] === true);
      assert.equal(won.length, 1, JSON.stringify(replies.map((r) => r['failure_reason'])));
      assert.deepEqual(
        new Set(replies.filter((r) => r['success'] !== true).map((r) => r['failure_reason'])),
        new Set(['user exists']),
      );
      const rows = await sqlOf(store)('users').where('email', 'race@example.org').select('user_id');
      assert.equal(rows.length, 1);
    });

    it(`gives exactly one new key to ${REFRESHERS} simultaneous refreshes of one token, every round`, async () => {
      await insertUsers(store, [{ userId: 40, role: 'authenticated' }]);
      const lifetimes = { expires_seconds: 600, not_valid_before: 0, refresh_expires: 600, refresh_nbf: 0 };
      const issued = await call('apikey-new-nosession', {
        issuer: 'f',
        audience: 'a',
        subject: 's',
        apiversion: 1,
        ...lifetimes,
        user_id: 40,
        user_role: 'authenticated',
        ip_address: '192.0.2.1',
      });
      assert.equal(issued['success'], true, JSON.stringify(issued));
      let response = issued['response'] as { apikey: string; refresh_token: string };
      for (let round = 0; round < REFRESH_ROUNDS; round++) {
        const body = {
          apikey_dict: JSON.parse(response.apikey) as unknown,
          user_id: 40,
          user_role: 'authenticated',
          refresh_token: response.refresh_token,
          ip_address: '192.0.2.1',
          ...lifetimes,
        };
        const replies = await Promise.all(
          Array.from({ length: REFRESHERS }, () => call('apikey-refresh-nosession', body)),
        );
        const winners = replies.filter((r) => r['success'] === true);
        assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(replies.map((r) => r['failure_reason']))}`);
        response = winners[0]!['response'] as typeof response;
        const verified = await call('apikey-verify-nosession', {
          apikey_dict: JSON.parse(response.apikey) as unknown,
          user_id: 40,
          user_role: 'authenticated',
        });
        assert.equal(verified['success'], true, `round ${round}: the winner's key works`);
      }
      const live = await sqlOf(store)('apikeys_nosession').where('user_id', 40).count({ n: '*' });
      assert.equal(Number(live[0]?.n), 1, 'one live key: no loser issued one');
    });
  });
});

/**
 * The concurrent-refresh race through two worker processes sharing one database (issue 12, DESIGN
 * quality bar): two refreshes with one token at once, repeated, must each time give exactly one new
 * key; the loser fails without side effects, so the winner's key stays valid.
 */
import { sqlOf } from '../helpers/sql.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from '../../src/store/index.js';
import { forEachDatabase, urlOf } from '../helpers/databases.js';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';
import type { AuthsvcProcess } from '../helpers/process.js';
import { insertUsers } from '../helpers/users.js';

const ROUNDS = 6;
const ROTATED = 'the refresh token was exchanged moments ago by another request; nothing was changed';

async function call(
  server: AuthsvcProcess,
  action: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await postOnce(server.url, server.seal(action, body));
  assert.equal(result.status, 200, result.text);
  return server.open(result.text);
}

interface Key {
  readonly dict: Record<string, unknown>;
  readonly refresh: string;
}

const keyOf = (reply: Record<string, unknown>): Key => {
  const response = reply['response'] as { apikey: string; refresh_token: string };
  return { dict: JSON.parse(response.apikey) as Record<string, unknown>, refresh: response.refresh_token };
};

forEachDatabase(
  (db) => {
    describe('--workers 2: two refreshes with one token', () => {
      it('exactly one succeeds, every time, and the winner’s key stays valid', async () => {
        const target = await db.fresh();
        const server = await spawnAuthsvc({
          workers: 2,
          env: { AUTHSVC_AUTHDB: urlOf(target), AUTHSVC_PWNEDURL: 'none', AUTHSVC_SERVERNAME: 'authsvc.test' },
        });
        const store = openStore(target);
        try {
          await insertUsers(store, [{ userId: 40, role: 'authenticated' }]);
          const lifetimes = { expires_seconds: 600, not_valid_before: 0, refresh_expires: 600, refresh_nbf: 0 };
          const issued = await call(server, 'apikey-new-nosession', {
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
          let key = keyOf(issued);
          for (let round = 0; round < ROUNDS; round++) {
            const body = {
              apikey_dict: key.dict,
              user_id: 40,
              user_role: 'authenticated',
              refresh_token: key.refresh,
              ip_address: '192.0.2.1',
              ...lifetimes,
            };
            const replies = await Promise.all([1, 2].map(() => call(server, 'apikey-refresh-nosession', body)));
            const winners = replies.filter((r) => r['success'] === true);
            assert.equal(winners.length, 1, JSON.stringify(replies));
            const loser = replies.find((r) => r['success'] !== true);
            assert.equal(loser?.['failure_reason'], ROTATED);
            key = keyOf(winners[0]!);
            const verified = await call(server, 'apikey-verify-nosession', {
              apikey_dict: key.dict,
              user_id: 40,
              user_role: 'authenticated',
            });
            assert.equal(verified['success'], true, `round ${round}: ${JSON.stringify(verified)}`);
          }
          const live = await sqlOf(store)('apikeys_nosession').where('user_id', 40).count({ n: '*' });
          assert.equal(Number(live[0]?.n), 1, 'one live key: every loser issued nothing');
        } finally {
          await store.close();
          await server.stop();
        }
      });
    });
  },
  ['pg', 'mysql', 'sqlite'],
);

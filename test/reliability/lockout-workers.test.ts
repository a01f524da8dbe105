/**
 * The failed-login counter through two worker processes sharing one database: a mutex inside one
 * process cannot hide a lost update here (docs/design.md#tests-use-real-components). 20 concurrent wrong logins must
 * count exactly 20 and set the lock once. (The reliability suite runs the same race with 50 logins.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from '../../src/services/store/index.js';
import { forEachDatabase, urlOf } from '../helpers/databases.js';
import { spawnAuthsvc } from '../helpers/process.js';
import { wrongLoginStorm } from '../helpers/races.js';

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
        const storm = await wrongLoginStorm(server, store, 20);
        assert.deepEqual(
          storm.answers.filter((a) => a.status !== 200),
          [],
          'every wrong login was checked (none turned away)',
        );
        assert.ok(storm.answers.every((a) => a.reply['success'] === false));
        assert.equal(storm.failedTries, 20);
        assert.notEqual(storm.lockedUntil, null);
        assert.equal(storm.lockouts, 1);
      } finally {
        await store.close();
        await server.stop();
      }
    });
  });
});

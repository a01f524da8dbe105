/**
 * A revocation is a fence (issue 26, finding 3; docs/design.md#revocation-fence), through two worker processes
 * sharing one database: while a superuser locks a user, many concurrent apikey-new-nosession requests
 * for that user are in flight. Once the lock has answered, no key issued to the user may verify and no
 * refresh token may refresh, also after the user is unlocked again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from '../../src/services/store/index.js';
import { forEachDatabase, urlOf } from '../helpers/databases.js';
import { spawnAuthsvc } from '../helpers/process.js';
import { lockRace } from '../helpers/races.js';

const RACE = { parallel: 12, lockAfter: 40, maxRequests: 300 } as const;

forEachDatabase((db) => {
  describe('--workers 2: keys issued while the user is being locked', () => {
    it('none verifies or refreshes after the lock, nor after the unlock', { timeout: 60_000 }, async (t) => {
      const target = await db.fresh();
      const server = await spawnAuthsvc({
        workers: 2,
        env: { AUTHSVC_AUTHDB: urlOf(target), AUTHSVC_PWNEDURL: 'none', AUTHSVC_SERVERNAME: 'authsvc.test' },
      });
      const store = openStore(target);
      try {
        const race = await lockRace(server, store, RACE);
        t.diagnostic(JSON.stringify(race));
        const survived = `${race.verifiedAfterUnlock} of ${race.issued} keys issued (${JSON.stringify(race)})`;
        assert.ok(race.issued >= RACE.lockAfter, JSON.stringify(race));
        assert.equal(race.verifiedAfterLock, 0, `verified after the lock: ${JSON.stringify(race)}`);
        assert.equal(race.verifiedAfterUnlock, 0, `verified after the unlock: ${survived}`);
        assert.equal(race.refreshedAfterUnlock, 0, `refreshed after the unlock: ${JSON.stringify(race)}`);
      } finally {
        await store.close();
        await server.stop();
      }
    });
  });
});

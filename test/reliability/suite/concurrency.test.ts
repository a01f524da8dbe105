/**
 * Races through two worker processes sharing one database, on every database: a mutex inside one
 * process cannot hide a lost update here. 50 simultaneous wrong logins count exactly 50 and lock the
 * account once; 20 simultaneous sign-ups of one address make one account; 10 simultaneous refreshes
 * of one token give exactly one new key, round after round.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../../src/services/store/index.js';
import type { Store } from '../../../src/services/store/index.js';
import { forEachDatabase } from '../../helpers/databases.js';
import type { AuthsvcProcess } from '../../helpers/process.js';
import { callerOf, refreshRace, wrongLoginStorm } from '../../helpers/races.js';
import { sqlOf } from '../../helpers/sql.js';
import { spawnOn } from '../../helpers/suite.js';

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

    const call = (action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> =>
      callerOf(server)(action, body);

    it(`counts ${LOGINS} simultaneous wrong logins exactly and locks the account once`, async (t) => {
      // Each worker admits a bounded number of waiting password hashes and answers the rest 503 "server
      // busy" at once (admission control): those never check the password and must not count.
      const storm = await wrongLoginStorm(server, store, LOGINS);
      const checked = storm.answers.filter((r) => r.status === 200);
      const turnedAway = storm.answers.filter((r) => r.status === 503);
      assert.equal(checked.length + turnedAway.length, LOGINS, 'only 200 and 503');
      assert.ok(checked.every((r) => r.reply['success'] === false));
      assert.deepEqual(
        turnedAway.filter((r) => r.reply['failure_reason'] !== 'server busy: too many password hashes waiting'),
        [],
      );
      assert.ok(checked.length >= 20, `${checked.length} of ${LOGINS} were checked`);
      t.diagnostic(
        `${LOGINS} simultaneous wrong logins: ${checked.length} checked, ${turnedAway.length} turned away busy; ` +
          `counter ${storm.failedTries}`,
      );
      assert.equal(storm.failedTries, checked.length, 'the counter counts every check, exactly');
      assert.notEqual(storm.lockedUntil, null);
      assert.equal(storm.lockouts, 1, 'one lock-out');
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
      // refreshRace fails a round that does not have exactly one winner.
      const race = await refreshRace(call, store, REFRESHERS, REFRESH_ROUNDS);
      for (const [round, { verified }] of race.rounds.entries()) {
        assert.equal(verified['success'], true, `round ${round}: the winner's key works`);
      }
      assert.equal(race.rounds.length, REFRESH_ROUNDS);
      assert.equal(race.liveKeys, 1, 'one live key: no loser issued one');
    });
  });
});

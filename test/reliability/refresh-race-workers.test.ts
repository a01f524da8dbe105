/**
 * The concurrent-refresh race through two worker processes sharing one database (issue 12,
 * docs/design.md#tests-use-real-components): two refreshes with one token at once, repeated, must each time give
 * exactly one new key; the loser fails without side effects, so the winner's key stays valid. (The reliability suite
 * runs the same race with ten refreshes a round.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from '../../src/services/store/index.js';
import { forEachDatabase, urlOf } from '../helpers/databases.js';
import { spawnAuthsvc } from '../helpers/process.js';
import { callerOf, refreshRace } from '../helpers/races.js';

const ROUNDS = 6;
const ROTATED = 'the refresh token was exchanged moments ago by another request; nothing was changed';

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
          // refreshRace fails a round that does not have exactly one winner.
          const race = await refreshRace(callerOf(server), store, 2, ROUNDS);
          for (const [round, { replies, verified }] of race.rounds.entries()) {
            const loser = replies.find((r) => r['success'] !== true);
            assert.equal(loser?.['failure_reason'], ROTATED, `round ${round}: ${JSON.stringify(replies)}`);
            assert.equal(verified['success'], true, `round ${round}: ${JSON.stringify(verified)}`);
          }
          assert.equal(race.rounds.length, ROUNDS);
          assert.equal(race.liveKeys, 1, 'one live key: every loser issued nothing');
        } finally {
          await store.close();
          await server.stop();
        }
      });
    });
  },
  ['pg', 'mysql', 'sqlite'],
);

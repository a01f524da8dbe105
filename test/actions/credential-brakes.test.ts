/**
 * Every action that verifies a password goes through the one credential check (docs/design.md#one-credential-check):
 * a wrong guess counts toward the lock-out, waits out the login back-off,
 * and once the account is temporarily locked even the right password is refused, by that action and
 * by user-login alike. Each failure answers the action's one generic message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GOOD_PASSWORD, openSession, storedUser, verifiedUser } from '../helpers/accounts.js';
import { FAILURE_REASONS } from '../../src/protocol/failure-codes.js';
import { forEachDatabase } from '../helpers/databases.js';
import { PASSWORD_ACTIONS } from '../helpers/password-actions.js';
import type { Guessed } from '../helpers/password-actions.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const WRONG = 'not-the-password-9!';
const TRIES = 3;

type Reply = { readonly success: boolean; readonly failure_reason?: string; readonly messages: readonly string[] };

forEachDatabase((db) => {
  describe('every password check has the three brakes', () => {
    let server: TestServer;
    const waits: number[] = [];
    let n = 0;
    before(async () => {
      server = await startTestServer({
        database: db,
        config: { userLockTries: TRIES, userLockTimeSeconds: 3600, loginBackoff: true },
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      });
    });
    after(() => server.close());

    const newAccount = async (): Promise<Guessed> => {
      const email = `guessed-${++n}@example.org`;
      return { userId: await verifiedUser(server, email), email };
    };

    const open = (userId: number | null) => openSession(server, userId);
    const attempt = async (name: string, user: Guessed, password: string): Promise<Reply> => {
      const { action, body } = PASSWORD_ACTIONS[name]!;
      return server.call(action, await body(user, password, open));
    };

    for (const [name, { message }] of Object.entries(PASSWORD_ACTIONS)) {
      it(`${name}: ${TRIES + 1} wrong guesses count, back off and lock; then the right password is refused`, async () => {
        const user = await newAccount();
        waits.length = 0;
        for (let i = 0; i < TRIES + 1; i++) {
          const reply = await attempt(name, user, WRONG);
          assert.equal(reply.success, false, JSON.stringify(reply));
          assert.deepEqual(reply.messages, [message], `guess ${i + 1}: the one message`);
        }
        const row = await storedUser(server, user.userId);
        assert.equal(Number(row['failed_login_tries']), TRIES + 1, 'every wrong guess is counted');
        assert.notEqual(row['locked_until'], null, 'the account is temporarily locked');
        assert.deepEqual(waits, [1000, 1500, 2250, 3375], 'each failure waits out the growing back-off');

        const right = await attempt(name, user, GOOD_PASSWORD);
        assert.equal(right.success, false, `${name} refuses the right password while locked`);
        assert.equal(right.failure_reason, FAILURE_REASONS.temporarily_locked);
        assert.deepEqual(right.messages, [message], 'the lock shows only in failure_reason');
        const login = await attempt('user-login', user, GOOD_PASSWORD);
        assert.equal(login.success, false, 'user-login refuses too');

        // The lock ends; the right password works again and ends the run of failures.
        server.clock.advance(3600_000 + 1);
        const afterLock = await attempt('user-passcheck-nosession', user, GOOD_PASSWORD);
        assert.equal(afterLock.success, true, JSON.stringify(afterLock));
      });
    }

    it('user-changepass-nosession: an unknown user id, a wrong email and a wrong password answer alike', async () => {
      const user = await newAccount();
      const change = (who: Guessed, password: string) => attempt('user-changepass-nosession', who, password);
      const replies = [
        await change({ userId: 999_999, email: user.email }, GOOD_PASSWORD),
        await change({ userId: user.userId, email: 'someone-else@example.org' }, GOOD_PASSWORD),
        await change(user, WRONG),
      ];
      for (const reply of replies) {
        assert.equal(reply.success, false);
        assert.deepEqual(reply.messages, [PASSWORD_ACTIONS['user-changepass-nosession']!.message]);
        assert.equal(reply.failure_reason, FAILURE_REASONS.wrong_credentials);
      }
    });
  });
});

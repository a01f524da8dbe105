/**
 * Every action that verifies a password goes through the one credential check (docs/design.md,
 * "One credential check"): a wrong guess counts toward the lock-out, waits out the login back-off,
 * and once the account is temporarily locked even the right password is refused, by that action and
 * by user-login alike. Each failure answers the action's one generic message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GOOD_PASSWORD, openSession, storedUser, verifiedUser } from '../helpers/accounts.js';
import { FAILURE_REASONS } from '../../src/protocol/failure-codes.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const WRONG = 'not-the-password-9!';
const TRIES = 3;
const NEW_PASSWORD = 'quarry-lantern-mossy-77';

interface Guesser {
  /** One request of the action with this password, for the user. */
  readonly attempt: (server: TestServer, user: Account, password: string) => Promise<Reply>;
  /** The message every failure of the action shows the end user. */
  readonly message: string;
}

interface Account {
  readonly userId: number;
  readonly email: string;
}

type Reply = { readonly success: boolean; readonly failure_reason?: string; readonly messages: readonly string[] };

const DID_NOT_WORK = "Sorry, that user ID and password combination didn't work.";
const CURRENT_DID_NOT_MATCH = 'Your current password did not match the stored password.';

const GUESSERS: Record<string, Guesser> = {
  'user-login': {
    message: DID_NOT_WORK,
    attempt: async (server, user, password) =>
      server.call('user-login', { session_token: await openSession(server), email: user.email, password }),
  },
  'user-passcheck-nosession': {
    message: DID_NOT_WORK,
    attempt: (server, user, password) => server.call('user-passcheck-nosession', { email: user.email, password }),
  },
  'user-passcheck': {
    message: DID_NOT_WORK,
    attempt: async (server, user, password) =>
      server.call('user-passcheck', { session_token: await openSession(server, user.userId), password }),
  },
  'user-changepass': {
    message: CURRENT_DID_NOT_MATCH,
    attempt: async (server, user, password) =>
      server.call('user-changepass', {
        user_id: user.userId,
        session_token: await openSession(server, user.userId),
        full_name: 'Jane Doe',
        email: user.email,
        current_password: password,
        new_password: NEW_PASSWORD,
      }),
  },
  'user-changepass-nosession': {
    message: CURRENT_DID_NOT_MATCH,
    attempt: (server, user, password) =>
      server.call('user-changepass-nosession', {
        user_id: user.userId,
        full_name: 'Jane Doe',
        email: user.email,
        current_password: password,
        new_password: NEW_PASSWORD,
      }),
  },
  'user-delete': {
    message: 'We could not verify your email address or password.',
    attempt: (server, user, password) =>
      server.call('user-delete', { user_id: user.userId, email: user.email, password }),
  },
  'user-edit (email)': {
    message: 'Your password did not match.',
    attempt: async (server, user, password) =>
      server.call('user-edit', {
        user_id: user.userId,
        user_role: 'authenticated',
        session_token: await openSession(server, user.userId),
        target_userid: user.userId,
        update_dict: { email: `moved-${user.userId}@example.org` },
        password,
      }),
  },
};

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

    const newAccount = async (): Promise<Account> => {
      const email = `guessed-${++n}@example.org`;
      return { userId: await verifiedUser(server, email), email };
    };

    for (const [name, guesser] of Object.entries(GUESSERS)) {
      it(`${name}: ${TRIES + 1} wrong guesses count, back off and lock; then the right password is refused`, async () => {
        const user = await newAccount();
        waits.length = 0;
        for (let i = 0; i < TRIES + 1; i++) {
          const reply = await guesser.attempt(server, user, WRONG);
          assert.equal(reply.success, false, JSON.stringify(reply));
          assert.deepEqual(reply.messages, [guesser.message], `guess ${i + 1}: the one message`);
        }
        const row = await storedUser(server, user.userId);
        assert.equal(Number(row['failed_login_tries']), TRIES + 1, 'every wrong guess is counted');
        assert.notEqual(row['locked_until'], null, 'the account is temporarily locked');
        assert.deepEqual(waits, [1000, 1500, 2250, 3375], 'each failure waits out the growing back-off');

        const right = await guesser.attempt(server, user, GOOD_PASSWORD);
        assert.equal(right.success, false, `${name} refuses the right password while locked`);
        assert.equal(right.failure_reason, FAILURE_REASONS.temporarily_locked);
        assert.deepEqual(right.messages, [guesser.message], 'the lock shows only in failure_reason');
        const login = await GUESSERS['user-login']!.attempt(server, user, GOOD_PASSWORD);
        assert.equal(login.success, false, 'user-login refuses too');

        // The lock ends; the right password works again and ends the run of failures.
        server.clock.advance(3600_000 + 1);
        const afterLock = await GUESSERS['user-passcheck-nosession']!.attempt(server, user, GOOD_PASSWORD);
        assert.equal(afterLock.success, true, JSON.stringify(afterLock));
      });
    }

    it('user-changepass-nosession: an unknown user id, a wrong email and a wrong password answer alike', async () => {
      const user = await newAccount();
      const attempt = GUESSERS['user-changepass-nosession']!.attempt;
      const replies = [
        await attempt(server, { userId: 999_999, email: user.email }, GOOD_PASSWORD),
        await attempt(server, { userId: user.userId, email: 'someone-else@example.org' }, GOOD_PASSWORD),
        await attempt(server, user, WRONG),
      ];
      for (const reply of replies) {
        assert.equal(reply.success, false);
        assert.deepEqual(reply.messages, [CURRENT_DID_NOT_MATCH]);
        assert.equal(reply.failure_reason, FAILURE_REASONS.wrong_credentials);
      }
    });
  });
});

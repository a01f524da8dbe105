/**
 * The paths to account takeover, through two worker processes on every database (docs/design.md#one-credential-check
 * and "Email changes"): for every action that takes a password, simultaneous wrong
 * guesses are each counted and lock the account, after which the right password is refused too; and a
 * stolen session alone cannot move the account's email, so it cannot reach a password reset; and no key
 * outlives a revocation (docs/design.md#revocation-fence): keys issued while the user is being locked
 * neither verify nor refresh afterwards, also once the user is unlocked (the race of
 * test/reliability/lock-fence-workers.test.ts, larger).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FAILURE_REASONS } from '../../../src/protocol/failure-codes.js';
import { openStore } from '../../../src/services/store/index.js';
import type { Store } from '../../../src/services/store/index.js';
import { forEachDatabase } from '../../helpers/databases.js';
import { PASSWORD_ACTIONS } from '../../helpers/password-actions.js';
import type { Guessed } from '../../helpers/password-actions.js';
import { postOnce } from '../../helpers/process.js';
import type { AuthsvcProcess } from '../../helpers/process.js';
import { callerOf, lockRace } from '../../helpers/races.js';
import type { Reply } from '../../helpers/races.js';
import { sessionNewBody } from '../../helpers/requests.js';
import { sqlOf } from '../../helpers/sql.js';
import { spawnOn } from '../../helpers/suite.js';

const PASSWORD = 'plinth-orchard-vapour-42';
const WRONG = 'not-the-password-9!';
const TRIES = 3;
const GUESSES = TRIES + 1;

forEachDatabase((db) => {
  describe('--workers 2: the paths to account takeover stay closed', () => {
    let server: AuthsvcProcess;
    let store: Store;
    let n = 0;
    before(async () => {
      const target = await db.fresh();
      // The limits and the back-off are tested on their own; here only the lock-out is in the way.
      server = await spawnOn(target, {
        workers: 2,
        env: { AUTHSVC_USERLOCKTRIES: String(TRIES), AUTHSVC_LOGINBACKOFF: 'none', AUTHSVC_RATELIMITS: 'none' },
      });
      store = openStore(target);
    });
    after(async () => {
      await store.close();
      await server.stop();
    });

    const call = (action: string, body: Record<string, unknown>): Promise<Reply> => callerOf(server)(action, body);
    const open = async (userId: number | null): Promise<string> =>
      ((await call('session-new', sessionNewBody(userId)))['response'] as { session_token: string }).session_token;
    const newUser = async (): Promise<Guessed> => {
      const email = `target-${++n}@example.org`;
      const signup = await call('user-new', { email, password: PASSWORD, full_name: 'Jane Doe' });
      const userId = (signup['response'] as { user_id: number }).user_id;
      await sqlOf(store)('users')
        .where('user_id', userId)
        .update({ email_verified: true, is_active: true, user_role: 'authenticated' });
      return { userId, email };
    };
    const stored = async (userId: number): Promise<Record<string, unknown>> =>
      (await sqlOf(store)('users').where('user_id', userId).first()) as Record<string, unknown>;

    for (const [name, { action, body, message }] of Object.entries(PASSWORD_ACTIONS)) {
      it(`${name}: ${GUESSES} simultaneous wrong guesses lock the account; then the right password fails`, async () => {
        const user = await newUser();
        const guesses = await Promise.all(Array.from({ length: GUESSES }, () => body(user, WRONG, open)));
        const answers = await Promise.all(guesses.map((b) => postOnce(server.url, server.seal(action, b))));
        assert.deepEqual(
          answers.map((a) => a.status),
          Array<number>(GUESSES).fill(200),
        );
        for (const answer of answers) {
          const reply = server.open(answer.text);
          assert.equal(reply['success'], false);
          assert.deepEqual(reply['messages'], [message]);
        }
        const row = await stored(user.userId);
        assert.equal(Number(row['failed_login_tries']), GUESSES, 'every guess counted, across both workers');
        assert.notEqual(row['locked_until'], null, 'the account is locked');

        const right = await call(action, await body(user, PASSWORD, open));
        assert.equal(right['success'], false, 'the right password is refused while the lock lasts');
        assert.equal(right['failure_reason'], FAILURE_REASONS.temporarily_locked);
        const login = await call('user-login', {
          session_token: await open(null),
          email: user.email,
          password: PASSWORD,
        });
        assert.equal(login['success'], false, 'user-login refuses too');
      });
    }

    it('no key issued while the user is being locked outlives the lock', async (t) => {
      const race = await lockRace(server, store, { parallel: 16, lockAfter: 80, maxRequests: 600 });
      t.diagnostic(`lock race: ${JSON.stringify(race)}`);
      assert.ok(race.issued >= 80, JSON.stringify(race));
      assert.equal(race.verifiedAfterLock, 0, JSON.stringify(race));
      assert.equal(race.verifiedAfterUnlock, 0, JSON.stringify(race));
      assert.equal(race.refreshedAfterUnlock, 0, JSON.stringify(race));
    });

    it('a stolen session cannot move the email, so it cannot reach a password reset', async () => {
      const victim = await newUser();
      const stolen = await open(victim.userId);
      const attacker = `attacker-${n}@example.net`;
      const edit = (extra: Record<string, unknown>) =>
        call('user-edit', {
          user_id: victim.userId,
          user_role: 'authenticated',
          session_token: stolen,
          target_userid: victim.userId,
          update_dict: { email: attacker },
          ...extra,
        });
      assert.equal((await edit({}))['failure_reason'], FAILURE_REASONS.invalid_params);
      for (let i = 0; i < GUESSES; i++) assert.equal((await edit({ password: WRONG }))['success'], false);
      assert.equal((await stored(victim.userId))['email'], victim.email, 'the address is unchanged');

      const reset = await call('user-resetpass', {
        email_address: attacker,
        new_password: 'quarry-lantern-mossy-77',
        session_token: stolen,
      });
      assert.equal(reset['success'], false);
      const mail = await call('user-sendemail-forgotpass', {
        email_address: attacker,
        session_token: stolen,
        server_name: 'Example',
        server_baseurl: 'https://app.example.org/',
        verification_token: 'token',
        verification_expiry: 900,
        password_forgot_url: '/reset',
      });
      assert.equal(mail['success'], false, 'no reset mail for the attacker');
    });
  });
});

/**
 * Second steps racing through two worker processes sharing one database (docs/design.md#second-factors), where a
 * mutex inside one process cannot hide a double use: several second steps with one login ticket have exactly one
 * winner, whether they present one TOTP code or different recovery codes; a TOTP code used on one worker is
 * refused on the other; wrong codes at once are each counted toward the lock; and one passkey answer posted at once
 * to both workers logs in once (docs/design.md#passkeys).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { totpCodeAt } from '../../../src/accounts/second-factor.js';
import { openStore } from '../../../src/services/store/index.js';
import type { Store } from '../../../src/services/store/index.js';
import { forEachDatabase, urlOf } from '../../helpers/databases.js';
import { openSessionOn, spawnAuthsvc } from '../../helpers/process.js';
import { callerOf } from '../../helpers/races.js';
import type { Call, Reply } from '../../helpers/races.js';
import { SoftAuthenticator } from '../../helpers/soft-authenticator.js';
import { sqlOf } from '../../helpers/sql.js';

const PASSWORD = 'plinth-orchard-vapour-42';
const RACERS = 4;
const USED = 'the second factor did not verify';
const ORIGIN = 'http://localhost:3000';

const responseOf = (reply: Reply): Record<string, unknown> => reply['response'] as Record<string, unknown>;

/** A new active user with an authenticator app: its email, TOTP secret and recovery codes. */
async function enrolledUser(call: Call, store: Store, email: string) {
  const signup = await call('user-new', { email, password: PASSWORD, full_name: 'Racer' });
  assert.equal(signup['success'], true, JSON.stringify(signup));
  const userId = Number(responseOf(signup)['user_id']);
  await sqlOf(store)('users')
    .where('user_id', userId)
    .update({ email_verified: true, is_active: true, user_role: 'authenticated' });
  const opened = await call('session-new', {
    ip_address: '198.51.100.20',
    user_agent: 'test agent',
    user_id: userId,
    expires: 1,
    extra_info_json: {},
  });
  const session = String(responseOf(opened)['session_token']);
  const started = responseOf(await call('user-totp-new', { user_id: userId, session_token: session, name: 'phone' }));
  const secret = String(started['secret']);
  // Confirm with the previous step's code (still inside the window), so the current step's code stays unused.
  const confirmed = await call('user-totp-confirm', {
    user_id: userId,
    session_token: session,
    factor_id: started['factor_id'],
    code: totpCodeAt(secret, Date.now() - 30_000),
  });
  assert.equal(confirmed['success'], true, JSON.stringify(confirmed));
  return { email, secret, codes: responseOf(confirmed)['recovery_codes'] as string[] };
}

/** The first step of a login: its session and ticket. */
async function firstStep(call: Call, session: string, email: string): Promise<string> {
  const reply = await call('user-login', { session_token: session, email, password: PASSWORD });
  assert.equal(reply['success'], false);
  const ticket = responseOf(reply)['login_ticket'];
  assert.equal(typeof ticket, 'string', JSON.stringify(reply));
  return String(ticket);
}

forEachDatabase(
  (db) => {
    describe('--workers 2: second steps at once', () => {
      it('one ticket has exactly one winner, with one TOTP code or different recovery codes; a used code stays used', async () => {
        const target = await db.fresh();
        const server = await spawnAuthsvc({
          workers: 2,
          env: {
            AUTHSVC_AUTHDB: urlOf(target),
            AUTHSVC_PWNEDURL: 'none',
            AUTHSVC_SERVERNAME: 'authsvc.test',
            AUTHSVC_PASSKEYORIGINS: ORIGIN,
          },
        });
        const store = openStore(target);
        const call = callerOf(server);
        try {
          for (let round = 0; round < 3; round++) {
            const user = await enrolledUser(call, store, `totp${round}@example.org`);
            const session = await openSessionOn(server, null);
            const ticket = await firstStep(call, session, user.email);
            const code = totpCodeAt(user.secret, Date.now());
            const step = { session_token: session, login_ticket: ticket, method: 'totp', code };
            const replies = await Promise.all(
              Array.from({ length: RACERS }, () => call('user-login-secondfactor', step)),
            );
            assert.equal(replies.filter((r) => r['success'] === true).length, 1, JSON.stringify(replies));

            // The same code on a new ticket, on whichever worker answers, is a replay.
            const again = await openSessionOn(server, null);
            for (let i = 0; i < 2; i++) {
              const replay = await call('user-login-secondfactor', {
                session_token: again,
                login_ticket: await firstStep(call, again, user.email),
                method: 'totp',
                code,
              });
              assert.equal(replay['failure_reason'], USED, JSON.stringify(replay));
            }
          }

          const user = await enrolledUser(call, store, 'recovery@example.org');
          for (let round = 0; round < 2; round++) {
            const session = await openSessionOn(server, null);
            const ticket = await firstStep(call, session, user.email);
            const codes = user.codes.slice(round * RACERS, (round + 1) * RACERS);
            const replies = await Promise.all(
              codes.map((code) =>
                call('user-login-secondfactor', {
                  session_token: session,
                  login_ticket: ticket,
                  method: 'recovery',
                  code,
                }),
              ),
            );
            assert.equal(replies.filter((r) => r['success'] === true).length, 1, JSON.stringify(replies));
          }

          // Wrong codes at once, each on a ticket of its own: every one is counted, as wrong passwords are.
          const guessed = await enrolledUser(call, store, 'guessed@example.org');
          const steps = await Promise.all(
            Array.from({ length: 6 }, async () => {
              const session = await openSessionOn(server, null);
              return { session_token: session, login_ticket: await firstStep(call, session, guessed.email) };
            }),
          );
          const wrong = await Promise.all(
            steps.map((step) => call('user-login-secondfactor', { ...step, method: 'totp', code: '000000' })),
          );
          for (const reply of wrong) assert.equal(reply['failure_reason'], USED, JSON.stringify(reply));
          const row: { failed_login_tries: unknown } = await sqlOf(store)('users')
            .where('email', guessed.email)
            .first('failed_login_tries');
          assert.equal(Number(row.failed_login_tries), 6);

          // A passkey: the challenge is made on one worker and taken on whichever answers, once.
          const holder = await enrolledUser(call, store, 'passkey@example.org');
          const holderRow: { user_id: unknown } = await sqlOf(store)('users')
            .where('email', holder.email)
            .first('user_id');
          const userId = Number(holderRow.user_id);
          const own = await openSessionOn(server, userId);
          const authenticator = new SoftAuthenticator();
          await call('user-stepup', {
            user_id: userId,
            session_token: own,
            method: 'recovery',
            code: holder.codes[0],
          });
          const asked = await call('user-passkey-options', {
            session_token: own,
            purpose: 'register',
            user_id: userId,
          });
          const made = authenticator.register(responseOf(asked)['options'] as never, { origin: ORIGIN });
          const registered = await call('user-passkey-register', {
            user_id: userId,
            session_token: own,
            name: 'laptop',
            response: made,
          });
          assert.equal(registered['success'], true, JSON.stringify(registered));
          for (let round = 0; round < 3; round++) {
            const page = await openSessionOn(server, null);
            const options = await call('user-passkey-options', { session_token: page, purpose: 'login' });
            const answer = authenticator.authenticate(responseOf(options)['options'] as never, { origin: ORIGIN });
            const replies = await Promise.all(
              Array.from({ length: RACERS }, () =>
                call('user-login-passkey', { session_token: page, response: answer }),
              ),
            );
            assert.equal(replies.filter((r) => r['success'] === true).length, 1, JSON.stringify(replies));
          }
        } finally {
          await store.close();
          await server.stop();
        }
      });
    });
  },
  ['pg', 'mysql', 'sqlite'],
);

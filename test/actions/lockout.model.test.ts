/**
 * The login/lock state machine (docs/design.md#lock-out-and-login-back-off) against an independent model, with a frozen
 * clock: fast-check drives random sequences of wrong passwords, right passwords and the passing of
 * time through the real server and compares every answer and the stored counter and lock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { optionalTimeFromDb } from '../../src/services/store/dialect.js';
import { GOOD_PASSWORD, storedUser, verifiedUser } from '../helpers/accounts.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const TRIES = 3;
const LOCK_MS = 60_000;

/** What the account should look like: written from docs/design.md#lock-out-and-login-back-off, not from the code. */
interface Model {
  count: number;
  lockedUntil: number | null;
}

interface Real {
  readonly server: TestServer;
  readonly email: string;
  readonly userId: number;
}

const isLocked = (m: Model, now: number): boolean => m.lockedUntil !== null && m.lockedUntil > now;

/** A failed check: restart at 1 after an expired lock, else count; the check that exceeds TRIES locks. */
function modelFailure(m: Model, now: number): void {
  if (m.lockedUntil !== null && m.lockedUntil <= now) {
    m.count = 1;
    m.lockedUntil = null;
  } else {
    m.count += 1;
  }
  if (m.lockedUntil === null && m.count > TRIES) m.lockedUntil = now + LOCK_MS;
}

async function expectStored(real: Real, m: Model): Promise<void> {
  const row = await storedUser(real.server, real.userId);
  assert.equal(Number(row['failed_login_tries']), m.count, 'failed_login_tries');
  assert.equal(optionalTimeFromDb(row['locked_until']), m.lockedUntil, 'locked_until');
}

class Attempt implements fc.AsyncCommand<Model, Real> {
  constructor(readonly right: boolean) {}
  check = (): boolean => true;
  async run(m: Model, real: Real): Promise<void> {
    const now = real.server.clock.now();
    const reply = await real.server.call('user-passcheck-nosession', {
      email: real.email,
      password: this.right ? GOOD_PASSWORD : 'not the password',
    });
    if (this.right && !isLocked(m, now)) {
      m.count = 0;
      m.lockedUntil = null;
      assert.equal(reply.success, true);
    } else {
      modelFailure(m, now);
      assert.equal(reply.success, false);
      const reason = isLocked(m, now)
        ? 'user is temporarily locked after too many failed logins'
        : "user does not exist or password doesn't match";
      assert.equal(!reply.success && reply.failure_reason, reason);
      assert.deepEqual(reply.messages, ["Sorry, that user ID and password combination didn't work."]);
    }
    await expectStored(real, m);
  }
  toString = (): string => (this.right ? 'right' : 'wrong');
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  run(_m: Model, real: Real): Promise<void> {
    real.server.clock.advance(this.ms);
    return Promise.resolve();
  }
  toString = (): string => `wait ${this.ms}`;
}

describe('the login/lock state machine', () => {
  let server: TestServer;
  let runs = 0;
  before(async () => {
    server = await startTestServer({ config: { userLockTries: TRIES, userLockTimeSeconds: LOCK_MS / 1000 } });
  });
  after(() => server.close());

  it('matches the model for random sequences of attempts and waits', async () => {
    // Wrong passwords are the common case, so that sequences reach the lock and its expiry often.
    const commands = [
      fc.constant(new Attempt(false)),
      fc.constant(new Attempt(false)),
      fc.constant(new Attempt(false)),
      fc.constant(new Attempt(true)),
      fc.constantFrom(1_000, LOCK_MS - 1, LOCK_MS, 2 * LOCK_MS).map((ms) => new Wait(ms)),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
        const email = `model${++runs}@example.org`;
        const userId = await verifiedUser(server, email);
        await fc.asyncModelRun(
          () => ({ model: { count: 0, lockedUntil: null }, real: { server, email, userId } }),
          cmds,
        );
      }),
      { numRuns: 80 },
    );
  });
});

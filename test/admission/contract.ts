/**
 * What every admission store must do, run against memory, the cluster primary channel and Redis.
 * Time is a frozen clock passed in, so counts are exact and nothing sleeps.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { backoffKey, retryAfterSeconds } from '../../src/services/admission/buckets.js';
import type { Bucket } from '../../src/services/admission/buckets.js';
import { DEFAULT_RATE_POLICY } from '../../src/services/admission/rate-limits.js';
import { replayKey } from '../../src/services/admission/memory-store.js';
import type { Admission, AdmissionStore, ReplayEntry } from '../../src/services/admission/store.js';
import { FrozenClock } from '../helpers/clock.js';
import { buckets, policy } from './fixtures.js';

export interface StoreUnderTest {
  readonly store: AdmissionStore;
  close(): Promise<void> | void;
}

const T0 = Date.UTC(2026, 0, 1);

async function count(store: AdmissionStore, clock: FrozenClock, list: Bucket[], times: number): Promise<Admission[]> {
  const answers: Admission[] = [];
  for (let i = 0; i < times; i++) answers.push(await store.admit(list, undefined, clock.now()));
  return answers;
}
const passed = (answers: Admission[]): number => answers.filter((a) => a.kind === 'ok').length;

export function admissionContract(
  name: string,
  make: () => Promise<StoreUnderTest>,
  skip: string | false = false,
): void {
  describe(`admission store: ${name}`, { skip }, () => {
    const withStore = (title: string, body: (store: AdmissionStore, clock: FrozenClock) => Promise<void>): void => {
      it(title, async () => {
        const subject = await make();
        try {
          await body(subject.store, new FrozenClock(T0));
        } finally {
          await subject.close();
        }
      });
    };

    withStore(
      'with session:120;burst:150 passes exactly 150 of 300, then refills at exactly 2 a second',
      async (store, clock) => {
        const list = buckets(policy('session:120;burst:150'), 'session-new');
        const answers = await count(store, clock, list, 300);
        assert.equal(passed(answers), 150);
        assert.ok(answers.slice(0, 150).every((a) => a.kind === 'ok'));
        const refused = answers[150];
        assert.equal(refused?.kind, 'rate-limited');
        assert.ok(refused?.kind === 'rate-limited');
        assert.equal(refused.retryAfterMs, 500);
        assert.equal(retryAfterSeconds(refused.retryAfterMs), 1);
        assert.match(refused.bucket.key, /^g:session:/);
        clock.advance(499);
        assert.equal(passed(await count(store, clock, list, 1)), 0);
        clock.advance(1);
        assert.equal(passed(await count(store, clock, list, 5)), 1);
        clock.advance(10_000);
        assert.equal(passed(await count(store, clock, list, 50)), 20);
      },
    );

    withStore(
      'passes 5 user-new, 10 user-list with user-list:10, and 50 user-login with user-login:50',
      async (store, clock) => {
        assert.equal(passed(await count(store, clock, buckets(DEFAULT_RATE_POLICY, 'user-new', '192.0.2.1'), 300)), 5);
        const listing = buckets(policy('user-list:10'), 'user-list', '192.0.2.2');
        assert.equal(passed(await count(store, clock, listing, 300)), 10);
        const strict = buckets(DEFAULT_RATE_POLICY, 'user-login', '192.0.2.3');
        assert.equal(passed(await count(store, clock, strict, 100)), 10);
        const raised = buckets(policy('user-login:50'), 'user-login', '192.0.2.4');
        const answers = await count(store, clock, raised, 100);
        assert.equal(passed(answers), 50);
        const last = answers[99];
        assert.ok(last?.kind === 'rate-limited');
        assert.equal(last.retryAfterMs, 1200);
      },
    );

    withStore('limits an email across IPs, and leaves other IPs and emails alone', async (store, clock) => {
      const send = (ip: string, email: string) =>
        store.admit(buckets(DEFAULT_RATE_POLICY, 'user-sendemail-forgotpass', ip, { email }), undefined, clock.now());
      assert.equal((await send('192.0.2.1', 'a@example.org')).kind, 'ok');
      assert.equal((await send('192.0.2.2', 'A@Example.org')).kind, 'ok');
      const third = await send('192.0.2.3', 'a@example.org');
      assert.ok(third.kind === 'rate-limited');
      assert.match(third.bucket.key, /^e:user-sendemail-forgotpass:/);
      assert.equal(third.retryAfterMs, 30_000);
      assert.equal((await send('192.0.2.3', 'b@example.org')).kind, 'ok');
      const rates = policy('session:120');
      await count(store, clock, buckets(rates, 'session-new', '198.51.100.1'), 200);
      assert.equal(passed(await count(store, clock, buckets(rates, 'session-new', '198.51.100.2'), 10)), 10);
    });

    withStore('consumes nothing for a refused request', async (store, clock) => {
      const ip = '192.0.2.9';
      const login = buckets(DEFAULT_RATE_POLICY, 'user-login', ip);
      assert.equal(passed(await count(store, clock, login, 200)), 10);
      // The per-IP bucket (burst 150) paid only for the 10 admitted logins.
      const other = buckets(DEFAULT_RATE_POLICY, 'session-new', ip);
      assert.equal(passed(await count(store, clock, other, 200)), 140);
    });

    withStore('accepts a token once; a replay consumes no rate and a 429 records no token', async (store, clock) => {
      const list = buckets(policy('user-list:2'), 'user-list');
      const token = (name: string): ReplayEntry => ({
        key: replayKey(createHash('sha256').update(name).digest()),
        expiresAtMs: clock.now() + 120_000,
      });
      assert.equal((await store.admit(list, token('r1'), clock.now())).kind, 'ok');
      assert.equal((await store.admit(list, token('r1'), clock.now())).kind, 'replayed');
      assert.equal((await store.admit(list, token('r2'), clock.now())).kind, 'ok');
      assert.equal((await store.admit(list, token('r3'), clock.now())).kind, 'rate-limited');
      clock.advance(30_000);
      assert.equal((await store.admit(list, token('r3'), clock.now())).kind, 'ok');
      assert.equal((await store.admit(list, token('r3'), clock.now())).kind, 'replayed');
    });

    withStore(
      'backs off 1, 1.5, 2.25, 3.375, 5.06 s on consecutive failures, reset by a success',
      async (store, clock) => {
        const key = backoffKey(`nobody-${T0}@example.org`);
        assert.equal(await store.waitFor(key, clock.now()), 0);
        const waits: number[] = [];
        for (let n = 1; n <= 5; n++) {
          assert.equal(await store.failure(key, clock.now()), n);
          waits.push(await store.waitFor(key, clock.now()));
        }
        assert.deepEqual(waits, [1000, 1500, 2250, 3375, 5063]);
        await store.success(key);
        assert.equal(await store.waitFor(key, clock.now()), 0);
        assert.equal(await store.failure(key, clock.now()), 1);
        for (let n = 2; n <= 12; n++) await store.failure(key, clock.now());
        assert.equal(await store.waitFor(key, clock.now()), 40_000);
      },
    );
  });
}

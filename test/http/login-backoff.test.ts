import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const ADMIN = { email: 'admin@example.org', password: 'correct horse battery staple' };
const GROWING = [1000, 1500, 2250, 3375, 5063];

describe('the login back-off (docs/design.md#lock-out-and-login-back-off)', () => {
  describe('on a frozen clock, the waits recorded', () => {
    let server: TestServer;
    const waits: number[] = [];
    before(async () => {
      server = await startTestServer({
        config: { loginBackoff: true },
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      });
    });
    after(() => server.close());

    const check = (email: string, password: string) => server.call('user-passcheck-nosession', { email, password });

    it('answers five wrong passwords for an unknown email after growing waits', async () => {
      waits.length = 0;
      for (let i = 0; i < 5; i++) assert.equal((await check('nobody@example.org', 'wrong password')).success, false);
      assert.deepEqual(waits, GROWING);
    });

    it('does the same for a known email, whatever its case, and a success resets the run', async () => {
      waits.length = 0;
      for (let i = 0; i < 5; i++) await check(i % 2 === 0 ? ADMIN.email : 'Admin@Example.org', 'wrong password');
      assert.deepEqual(waits, GROWING);
      waits.length = 0;
      assert.equal((await check(ADMIN.email, ADMIN.password)).success, true);
      assert.deepEqual(waits, [], 'a success does not wait');
      await check(ADMIN.email, 'wrong password');
      assert.deepEqual(waits, [1000], 'the run starts again at 1 s');
      await check(ADMIN.email, ADMIN.password);
    });

    it('counts user-login failures for the presented email too, and caps the wait at 40 s', async () => {
      waits.length = 0;
      const session = await server.call('session-new', { ip_address: '192.0.2.1', user_agent: 't', user_id: null });
      const token = (session.response as { session_token: string }).session_token;
      await server.call('user-login', { session_token: token, email: 'someone@example.org', password: 'x' });
      for (let i = 0; i < 11; i++) await check('someone@example.org', 'x');
      assert.equal(waits[0], 1000);
      assert.equal(waits.at(-1), 40_000);
    });
  });

  describe('with a real timer', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { loginBackoff: true } });
    });
    after(() => server.close());

    it('answers the first failure after about a second, without holding the server', async () => {
      const started = performance.now();
      const slow = server.call('user-passcheck-nosession', { email: 'x@example.org', password: 'wrong password' });
      const health = await fetch(new URL('/health', server.url));
      assert.equal(health.status, 200);
      assert.ok(performance.now() - started < 900, 'the server answers others meanwhile');
      await slow;
      assert.ok(performance.now() - started >= 990);
    });
  });
});

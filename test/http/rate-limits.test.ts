import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseRateLimits } from '../../src/services/admission/index.js';
import type { RatePolicy } from '../../src/services/admission/index.js';
import { actionNames } from '../../src/protocol/index.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

function rates(text: string): RatePolicy {
  const parsed = parseRateLimits(text, actionNames);
  if (!parsed.ok || parsed.value === null) throw new Error(`bad test policy ${text}`);
  return parsed.value;
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
}

async function send(server: TestServer, envelope: Record<string, unknown>): Promise<Answer> {
  const response = await server.post(server.seal(envelope));
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
}

const sessionNew = (ip = '203.0.113.7'): Record<string, unknown> => ({
  request: 'session-new',
  body: { ip_address: ip, user_agent: 'test', user_id: null },
  reqid: 1,
  client_ipaddr: ip,
});

/** How many of `n` back-to-back requests pass before the first 429 (and that none passes after it). */
async function passes(server: TestServer, n: number, make: (i: number) => Record<string, unknown>): Promise<number> {
  let passed = 0;
  let refused = 0;
  for (let i = 0; i < n; i++) {
    const { status } = await send(server, make(i));
    if (status === 429) refused++;
    else {
      assert.equal(refused, 0, `request ${i} passed after a refusal`);
      assert.equal(status, 200, `request ${i}`);
      passed++;
    }
  }
  return passed;
}

describe('rate limits through HTTP, on a frozen clock', () => {
  let server: TestServer;
  const start = async (text: string): Promise<TestServer> => {
    server = await startTestServer({ config: { rateLimits: rates(text) } });
    return server;
  };
  after(() => server?.close());

  describe('with session:120;burst:150', () => {
    before(() => start('session:120;burst:150'));
    after(() => server.close());

    it('passes exactly 150 of 300 session-new, then 429 with the real wait and the plain-text body', async () => {
      let first429: Answer | null = null;
      let passed = 0;
      for (let i = 0; i < 300; i++) {
        const answer = await send(server, sessionNew());
        if (answer.status === 200) passed++;
        else first429 ??= answer;
      }
      assert.equal(passed, 150);
      assert.ok(first429);
      assert.equal(first429.status, 429);
      assert.equal(first429.retryAfter, '1', 'one token back every 0.5 s: a whole second at least');
      assert.equal(
        first429.text,
        'HTTP 429: Could not service this request because the set rate limit has been exceeded.\n',
      );
      const warnings = server.logs.filter((l) => l.message === 'rate limited');
      assert.equal(warnings.length, 1, 'one log line per (key, minute)');
      assert.equal(
        server.logs.filter((l) => l['audit'] === 'ratelimit.hit').length,
        1,
        'one audit event per (key, minute)',
      );
    });

    it('refills at exactly the sustained rate', async () => {
      server.clock.advance(499);
      assert.equal((await send(server, sessionNew())).status, 429);
      server.clock.advance(1);
      assert.equal((await send(server, sessionNew())).status, 200);
      assert.equal((await send(server, sessionNew())).status, 429);
      server.clock.advance(5000);
      assert.equal(await passes(server, 15, () => sessionNew()), 10);
    });

    it('leaves another IP unaffected', async () => {
      assert.equal((await send(server, sessionNew('198.51.100.9'))).status, 200);
    });

    it('never limits /health', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await fetch(new URL('/health', server.url))).status, 200);
    });
  });

  describe('the strict per-action table and its overrides', () => {
    after(() => server.close());

    it('passes 5 user-new, 10 user-list with user-list:10, 50 user-login with user-login:50', async () => {
      await start('user-list:10;user-login:50');
      const userNew = (i: number) => ({
        request: 'user-new',
        body: { email: `u${i}@example.org`, password: 'not a good password', full_name: 'U' },
        reqid: i,
        client_ipaddr: '192.0.2.1',
      });
      assert.equal(await passes(server, 8, userNew), 5);
      const list = () => ({ request: 'user-list', body: { user_id: 1 }, reqid: 2, client_ipaddr: '192.0.2.2' });
      assert.equal(await passes(server, 13, list), 10);
      const login = (i: number) => ({
        request: 'user-login',
        body: { session_token: `t${i}`, email: `nobody${i}@example.org`, password: 'x' },
        reqid: i,
        client_ipaddr: '192.0.2.3',
      });
      assert.equal(await passes(server, 55, login), 50);
    });
  });

  describe('per-email limits', () => {
    before(() => start(''));
    after(() => server.close());

    it('hold across IPs, with the same n as per IP', async () => {
      const forgot = (i: number) => ({
        request: 'user-sendemail-forgotpass',
        body: { email_address: 'Victim@Example.org' },
        reqid: i,
        client_ipaddr: `192.0.2.${10 + i}`,
      });
      assert.equal(await passes(server, 4, forgot), 2);
    });
  });

  describe('replay and malformed requests', () => {
    before(() => start('session:120;burst:3;ipaddr:120'));
    after(() => server.close());

    it('a replayed token consumes no rate; a 429-refused token is not recorded for replay', async () => {
      const token = server.seal(sessionNew('192.0.2.50'));
      assert.equal((await server.post(token)).status, 200);
      for (let i = 0; i < 5; i++) assert.equal((await server.post(token)).status, 401);
      assert.equal((await send(server, sessionNew('192.0.2.50'))).status, 200);
      assert.equal((await send(server, sessionNew('192.0.2.50'))).status, 200);
      const refused = server.seal(sessionNew('192.0.2.50'));
      assert.equal((await server.post(refused)).status, 429);
      server.clock.advance(500);
      assert.equal((await server.post(refused)).status, 200, 'the refused token is accepted once the wait is over');
    });

    it('counts unknown actions and bad bodies against the per-IP bucket', async () => {
      const bad = (i: number) => ({
        request: i % 2 === 0 ? 'no-such-action' : 'session-new',
        body: 'x',
        reqid: i,
        client_ipaddr: '192.0.2.60',
      });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await send(server, bad(i))).status);
      assert.deepEqual(statuses, [400, 400, 400, 429, 429]);
      assert.equal((await send(server, sessionNew('192.0.2.60'))).status, 429);
    });

    it('answers 400 without a valid client_ipaddr while limiting is on', async () => {
      const { client_ipaddr: _, ...noIp } = sessionNew();
      assert.equal((await send(server, noIp)).status, 400);
    });
  });

  describe('with ratelimits none', () => {
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.close());

    it('takes requests without client_ipaddr and still refuses replays', async () => {
      const { client_ipaddr: _, ...noIp } = sessionNew();
      const token = server.seal(noIp);
      assert.equal((await server.post(token)).status, 200);
      assert.equal((await server.post(token)).status, 401);
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_RATE_POLICY } from '../../src/services/admission/index.js';
import { generateFernetKey, parseKeyring, sealJson } from '../../src/protocol/index.js';
import { rawRequest } from '../helpers/http.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      database: db,
      // The spec's default limits: with them on, client_ipaddr is required (docs/design.md#http-status-codes).
      config: { allowedHosts: ['localhost', '127.0.0.1', 'auth.example.org', '::1'], rateLimits: DEFAULT_RATE_POLICY },
    });
  });
  after(() => server.close());

  const exists = (reqid: string | number = 'r1') => ({
    request: 'session-exists',
    body: { session_token: 'no-such-token' },
    reqid,
    client_ipaddr: '198.51.100.4',
  });

  describe('POST / answers', () => {
    it('200 with an encrypted envelope for a well-formed request, whatever success says', async () => {
      const response = await server.post(server.seal(exists('abc')));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
      const text = await response.text();
      assert.match(text, /^Z0FBQUFB/);
      const reply = server.open(text) as Record<string, unknown>;
      assert.equal(reply['success'], false);
      assert.equal(reply['reqid'], 'abc');
      assert.equal(reply['failure_reason'], 'session does not exist or expired');
      assert.deepEqual(reply['response'], { session_info: null, failure_reason: 'session does not exist or expired' });
      assert.deepEqual(reply['messages'], ['Session look up failed.']);
    });

    it('accepts a bare Fernet token and answers it double-encoded', async () => {
      const bare = Buffer.from(server.seal(exists()), 'base64').toString('ascii');
      assert.match(bare, /^gAAAAA/);
      const response = await server.post(bare);
      assert.equal(response.status, 200);
      assert.match(await response.text(), /^Z0FBQUFB/);
    });

    it('ignores the request Content-Type', async () => {
      for (const type of ['application/x-www-form-urlencoded', 'application/json', 'image/png']) {
        const response = await server.post(server.seal(exists()), { headers: { 'content-type': type } });
        assert.equal(response.status, 200, type);
      }
    });

    it('echoes integer and empty-string reqids', async () => {
      for (const reqid of [0, 42, '']) {
        const reply = server.open(await (await server.post(server.seal(exists(reqid)))).text()) as { reqid: unknown };
        assert.equal(reply.reqid, reqid);
      }
    });

    it('400 for a decryptable envelope that is malformed', async () => {
      const cases: unknown[] = [
        [],
        'session-exists',
        null,
        42,
        { body: {}, reqid: 1, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: {}, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: {}, reqid: null, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: {}, reqid: { a: 1 }, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: {}, reqid: 1.5, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: {}, reqid: 'x'.repeat(257), client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: [], reqid: 1, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: 'x', reqid: 1, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', reqid: 1, client_ipaddr: '1.2.3.4' },
        { request: 'session-exists', body: {}, reqid: 1 },
        { request: 'session-exists', body: {}, reqid: 1, client_ipaddr: 'not an ip' },
        { request: 'session-exists', body: {}, reqid: 1, client_ipaddr: 'fe80::1%eth0' },
        { request: 'no-such-action', body: {}, reqid: 1, client_ipaddr: '1.2.3.4' },
        { request: 'toString', body: {}, reqid: 1, client_ipaddr: '1.2.3.4' },
        { request: '__proto__', body: {}, reqid: 1, client_ipaddr: '1.2.3.4' },
        { request: 7, body: {}, reqid: 1, client_ipaddr: '1.2.3.4' },
      ];
      for (const value of cases) {
        const response = await server.post(server.seal(value));
        assert.equal(response.status, 400, JSON.stringify(value));
        assert.equal(
          await response.text(),
          'HTTP 400: Could not service this request because of invalid request parameters.\n',
        );
      }
    });

    it('401 for what is not sealed with our key', async () => {
      const otherKey = parseKeyring(generateFernetKey());
      assert.ok(otherKey);
      const valid = server.seal(exists());
      const cases = [
        '',
        'garbage',
        'Z0FBQUFB',
        valid.slice(0, 60),
        valid.slice(0, -8),
        `${valid}AAAA`,
        sealJson(otherKey, exists()),
        Buffer.from('gAAAAAB' + 'A'.repeat(200)).toString('base64'),
      ];
      for (const body of cases) {
        const response = await server.post(body);
        assert.equal(response.status, 401, body.slice(0, 40));
        assert.match(await response.text(), /^HTTP 401: .*\n$/);
      }
      const binary = await server.post(Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]));
      assert.equal(binary.status, 401);
    });

    it('401 for a token older than messagettl or more than 30 s ahead', async () => {
      const now = server.clock.now();
      assert.equal((await server.post(server.seal(exists(), now - 121_000))).status, 401);
      assert.equal((await server.post(server.seal(exists(), now - 119_000))).status, 200);
      assert.equal((await server.post(server.seal(exists(), now + 29_000))).status, 200);
      assert.equal((await server.post(server.seal(exists(), now + 32_000))).status, 401);
    });

    it('401 for a replayed state-changing request; read-only requests may repeat', async () => {
      const change = server.seal({
        request: 'session-delete',
        body: { session_token: 'x' },
        reqid: 1,
        client_ipaddr: '1.2.3.4',
      });
      assert.equal((await server.post(change)).status, 200);
      assert.equal((await server.post(change)).status, 401);
      assert.equal((await server.post(`${change}\n`)).status, 401, 'the same token in another body');
      const read = server.seal(exists());
      assert.equal((await server.post(read)).status, 200);
      assert.equal((await server.post(read)).status, 200);
    });

    it('413 for a body over maxbodysize, declared or streamed', async () => {
      const big = 'A'.repeat(1024 * 1024 + 1);
      const declared = await server.post(big);
      assert.equal(declared.status, 413);
      assert.match(await declared.text(), /^HTTP 413: /);
      const streamed = await fetch(server.url, {
        method: 'POST',
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('A'.repeat(64 * 1024)));
            controller.close();
          },
        }),
        duplex: 'half',
      });
      assert.equal(streamed.status, 413);
    });
  });

  describe('HTTP guards', () => {
    it('404 for unknown paths, with one line of text', async () => {
      for (const path of ['/nope', '/echo', '//', '/health/x', '/index.html']) {
        const response = await rawRequest(server.url, { method: 'GET', path });
        assert.equal(response.status, 404, path);
        assert.equal(response.text, 'HTTP 404: Not found.\n');
      }
    });

    it('405 for wrong methods', async () => {
      for (const [method, path] of [
        ['GET', '/'],
        ['PUT', '/'],
        ['DELETE', '/'],
        ['POST', '/health'],
      ] as const) {
        const response = await rawRequest(server.url, { method, path });
        assert.equal(response.status, 405, `${method} ${path}`);
        assert.equal(response.text, 'HTTP 405: Method not allowed.\n');
      }
    });

    it('405 answers name the allowed methods in Allow', async () => {
      for (const [method, path, allow] of [
        ['GET', '/', 'POST'],
        ['OPTIONS', '/', 'POST'],
        ['POST', '/health', 'HEAD, GET'],
        ['DELETE', '/health', 'HEAD, GET'],
      ] as const) {
        const response = await rawRequest(server.url, { method, path });
        assert.equal(response.status, 405, `${method} ${path}`);
        assert.equal(response.headers['allow'], allow, `${method} ${path}`);
      }
      const found = await rawRequest(server.url, { method: 'GET', path: '/nope' });
      assert.equal(found.headers['allow'], undefined, 'a 404 names no methods');
    });

    it('401 when the Host header is not allowed (port stripped, case ignored, IPv6 brackets handled)', async () => {
      const body = server.seal(exists());
      for (const host of [
        'localhost',
        'LOCALHOST:8080',
        '127.0.0.1:13431',
        'auth.example.org',
        '[::1]:13431',
        '[::1]',
      ]) {
        const response = await rawRequest(server.url, { headers: { host }, body });
        assert.equal(response.status, 200, host);
      }
      for (const host of ['evil.example', 'auth.example.org.evil.example', '127.0.0.2', '[::2]', 'localhost.', '']) {
        const response = await rawRequest(server.url, { headers: { host }, body });
        assert.equal(response.status, 401, host);
      }
      const noHost = await rawRequest(server.url, { omitHost: true, body });
      assert.equal(noHost.status, 401);
      const health = await rawRequest(server.url, {
        method: 'GET',
        path: '/health',
        headers: { host: 'evil.example' },
      });
      assert.equal(health.status, 401);
    });

    it('never takes the host from X-Forwarded-Host', async () => {
      const response = await rawRequest(server.url, {
        headers: { host: 'evil.example', 'x-forwarded-host': 'localhost' },
        body: server.seal(exists()),
      });
      assert.equal(response.status, 401);
    });

    it('bounds slow clients with server timeouts', () => {
      assert.ok(server.app.server.requestTimeout > 0 && server.app.server.requestTimeout <= 60_000);
      assert.ok(server.app.server.headersTimeout > 0 && server.app.server.headersTimeout <= 30_000);
    });
  });

  describe('GET /health', () => {
    it('reports ok with the database probe, version, workers and uptime', async () => {
      const response = await fetch(new URL('/health', server.url));
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body['status'], 'ok');
      assert.equal(body['database'], 'ok');
      assert.equal(body['redis'], 'unused');
      assert.deepEqual(body['workers'], {
        expected: 1,
        alive: 1,
        restarts: 0,
        list: [{ slot: 1, pid: process.pid, state: 'up', restarts: 0 }],
      });
      assert.equal(typeof body['version'], 'string');
      assert.equal(typeof body['uptime_s'], 'number');
    });

    it('answers 503 "down" when the database no longer answers', async () => {
      const broken = await startTestServer({ database: db });
      try {
        await sqlOf(broken.app.store).raw('UPDATE users SET user_role = ? WHERE user_id = 1', ['staff']);
        const response = await fetch(new URL('/health', broken.url));
        assert.equal(response.status, 503);
        const body = (await response.json()) as Record<string, unknown>;
        assert.equal(body['status'], 'down');
        assert.equal(body['database'], 'down');
      } finally {
        await broken.close();
      }
    });
  });

  describe('request log', () => {
    it('answers 500 with one line to an unexpected fault, and logs it once with the request id', async () => {
      const broken = await startTestServer({ database: db });
      try {
        await sqlOf(broken.app.store).schema.renameTable('sessions', 'sessions_gone');
        const body = broken.seal({ ...exists('fault-1'), client_ipaddr: '198.51.100.4' });
        const response = await broken.post(body);
        assert.equal(response.status, 500);
        assert.equal(await response.text(), 'HTTP 500: Internal error.\n');
        const errors = broken.logs.filter((l) => l.message === 'internal error');
        assert.equal(errors.length, 1);
        assert.equal(errors[0]?.['reqid'], 'fault-1');
        const requests = broken.logs.filter((l) => l.message === 'request');
        assert.equal(requests.at(-1)?.['status'], 500);
      } finally {
        await broken.close();
      }
    });

    it('writes one JSON line per request with personal data only as digests', async () => {
      const before = server.logs.length;
      await server.call('session-exists', { session_token: 'tok' }, 'log-check');
      const lines = server.logs.slice(before).filter((l) => l.message === 'request');
      assert.equal(lines.length, 1);
      const line = lines[0];
      assert.ok(line);
      assert.equal(line['action'], 'session-exists');
      assert.equal(line['reqid'], 'log-check');
      assert.equal(line['status'], 200);
      assert.match(String(line['ip']), /^[0-9a-f]{32}$/);
      assert.ok(!JSON.stringify(server.logs).includes('203.0.113.7'), 'no client IP in clear');
    });
  });
});

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AuthsvcError, createClient } from '../../src/client/index.js';
import type { AuthsvcClient, InvalidRequestReason } from '../../src/client/index.js';
import { generateFernetKey } from '../../src/protocol/index.js';

let server: Server;
let hits = 0;
let client: AuthsvcClient;
before(async () => {
  server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(400).end('HTTP 400: no\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = createClient({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    secret: generateFernetKey(),
  });
});
after(() => {
  client.close();
  server.close();
});

/** A call the types forbid, as plain JavaScript (or a cast) would make it. */
function untyped(action: string, body: unknown, options: unknown): Promise<unknown> {
  const request = client.request.bind(client) as (a: string, b: unknown, o: unknown) => Promise<unknown>;
  return request(action, body, options);
}

async function refused(call: Promise<unknown>, reason: InvalidRequestReason, text: RegExp): Promise<void> {
  const before = hits;
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof AuthsvcError, String(error));
    assert.equal(error.kind, 'invalid-request');
    assert.equal(error.reason, reason);
    assert.equal(error.status, undefined);
    assert.match(error.message, text);
    return true;
  });
  assert.equal(hits, before, 'nothing was sent');
}

describe('the client refuses, before sending, what the server would answer 400', () => {
  it('names an unknown action', async () => {
    await refused(untyped('user-teleport', {}, { clientIp: '192.0.2.1' }), 'unknown-action', /"user-teleport" is not/);
  });
  it('names a missing client IP', async () => {
    await refused(untyped('session-exists', { session_token: 'x' }, {}), 'invalid-client-ip', /clientIp is missing/);
  });
  it('names a client IP that is not an address (a host name, a zone)', async () => {
    for (const ip of ['localhost', 'fe80::1%eth0', '300.1.1.1']) {
      await refused(
        client.request('session-exists', { session_token: 'x' }, { clientIp: ip }),
        'invalid-client-ip',
        /is not an IPv4 or IPv6 address/,
      );
    }
  });
  it('names a reqid the server would not echo', async () => {
    await refused(
      client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.1', reqid: 'x'.repeat(257) }),
      'invalid-reqid',
      /reqid must be/,
    );
    await refused(
      client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.1', reqid: 1.5 }),
      'invalid-reqid',
      /reqid must be/,
    );
  });
  it('names a body that is not an object', async () => {
    await refused(untyped('session-exists', ['x'], { clientIp: '192.0.2.1' }), 'body-not-object', /body must be/);
  });
  it('sends what passes the checks (the server may still answer 400: kind bad-request)', async () => {
    const before = hits;
    await assert.rejects(
      client.request('session-exists', { session_token: 'x' }, { clientIp: '2001:db8::1' }),
      (error: unknown) => error instanceof AuthsvcError && error.kind === 'bad-request' && error.status === 400,
    );
    assert.equal(hits, before + 1);
  });
});

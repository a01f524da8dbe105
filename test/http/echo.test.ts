import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isLoopback } from '../../src/http/loopback.js';
import { rawRequest } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let debug: TestServer;
let normal: TestServer;
before(async () => {
  debug = await startTestServer({ config: { debugmode: true } });
  normal = await startTestServer();
});
after(async () => {
  await debug.close();
  await normal.close();
});

const echoEnvelope = { request: 'echo', body: { hello: 'world', n: [1, 2] }, reqid: 'e-1', client_ipaddr: '192.0.2.1' };

describe('POST /echo', () => {
  it('answers the decrypted request in the standard envelope when debugmode is 1', async () => {
    const response = await debug.post(debug.seal(echoEnvelope), { path: '/echo' });
    assert.equal(response.status, 200);
    assert.deepEqual(debug.open(await response.text()), {
      success: true,
      response: { echo: echoEnvelope },
      messages: [],
      reqid: 'e-1',
    });
  });

  it('does not exist when debugmode is 0', async () => {
    const response = await normal.post(normal.seal(echoEnvelope), { path: '/echo' });
    assert.equal(response.status, 404);
  });

  it('refuses what is not an echo request, and too-deep payloads', async () => {
    const deep = JSON.parse('{"a":'.repeat(100) + '1' + '}'.repeat(100)) as unknown;
    for (const value of [
      { ...echoEnvelope, request: 'session-new' },
      { request: 'echo' },
      [1],
      { ...echoEnvelope, body: deep },
    ]) {
      const response = await debug.post(debug.seal(value), { path: '/echo' });
      assert.equal(response.status, 400, JSON.stringify(value).slice(0, 60));
    }
    assert.equal((await debug.post('garbage', { path: '/echo' })).status, 401);
    const get = await fetch(new URL('/echo', debug.url));
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  it('does not exist for a peer other than this machine, whatever the method', async (t) => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
    if (address === undefined) return t.skip('no network interface besides loopback');
    const remote = await startTestServer({ config: { debugmode: true, listen: address, allowedHosts: [address] } });
    try {
      for (const method of ['POST', 'GET', 'PUT']) {
        const body = method === 'POST' ? remote.seal(echoEnvelope) : undefined;
        const response = await rawRequest(remote.url, {
          method,
          path: '/echo',
          ...(body === undefined ? {} : { body }),
        });
        assert.equal(response.status, 404, method);
        assert.equal(response.text, 'HTTP 404: Not found.\n');
      }
      assert.equal((await remote.post(remote.seal(echoEnvelope), { path: '/' })).status, 400, 'POST / still served');
    } finally {
      await remote.close();
    }
  });

  it('treats only 127.0.0.0/8 and ::1 as loopback', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      assert.ok(isLoopback(address), address);
    for (const address of ['10.0.0.1', '::2', '::ffff:10.0.0.1', '1127.0.0.1', undefined])
      assert.equal(isLoopback(address), false, String(address));
  });
});

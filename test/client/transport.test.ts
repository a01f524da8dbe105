/**
 * The client's connections kept alive between requests. A server closes a connection it has kept idle for its
 * keep-alive time, and a request sent on it at that moment fails ("socket hang up"): the example frontend answered
 * such a request with 503 now and then. The client closes its idle connections a second before the time the server
 * announces (`Keep-Alive: timeout=N`), so it never sends on a connection the server is closing.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTransport } from '../../src/client/transport.js';

describe('the client transport keeps a connection alive as long as the server says, less a second', () => {
  let server: Server;
  let url: URL;
  const connections = new Set<Socket>();
  let answerAfterMs = 0;

  before(async () => {
    // Announces `Keep-Alive: timeout=2`. A second request on a connection stands for one that arrives as the server
    // closes it: the connection is cut without an answer, as a closing server's would be.
    const served = new WeakSet<Socket>();
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (served.has(req.socket) && answerAfterMs === 0) {
          req.socket.destroy();
          return;
        }
        served.add(req.socket);
        setTimeout(() => res.end('ok'), answerAfterMs);
      });
    });
    server.keepAliveTimeout = 2000;
    server.on('connection', (socket: Socket) => connections.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('opens a new connection after an idle time close to the announced one', async () => {
    connections.clear();
    const transport = createTransport(url);
    try {
      assert.equal((await transport.post('first', 5000)).text, 'ok');
      await sleep(1200);
      assert.equal((await transport.post('second', 5000)).text, 'ok');
      assert.equal(connections.size, 2);
    } finally {
      transport.close();
    }
  });

  it('reuses a connection within that time, and waits for a slow answer on it', async () => {
    connections.clear();
    answerAfterMs = 1500;
    const transport = createTransport(url);
    try {
      assert.equal((await transport.post('first', 5000)).text, 'ok');
      assert.equal((await transport.post('second, answered after the idle time', 5000)).text, 'ok');
      assert.equal(connections.size, 1);
    } finally {
      answerAfterMs = 0;
      transport.close();
    }
  });
});

/**
 * The request timeout (30 s by default) is the effective one (issue 15, finding 6): Node checks it
 * only every `connectionsCheckingInterval` (30 s by default), which made a stalled request wait up to
 * twice as long. A listener with a short timeout shows the check is frequent.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import Koa from 'koa';
import { listen } from '../../src/http/server.js';

describe('the request timeout', () => {
  it('ends a request whose body stalls within about a second of the timeout', async () => {
    // An app that reads the whole body before it answers, as the protocol's route does.
    const app = new Koa();
    app.use(async (ctx) => {
      const chunks: unknown[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk);
      ctx.body = 'read';
    });
    const server = await listen(app, { host: '127.0.0.1', port: 0, requestTimeoutMs: 1500 });
    try {
      const address = server.address();
      assert.ok(address !== null && typeof address === 'object');
      const started = performance.now();
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(address.port, '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', () => undefined);
        socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part of it');
        // Nothing more is sent: the server must give up on its own.
        setTimeout(() => socket.destroy(), 10_000).unref();
      });
      const ms = performance.now() - started;
      // Node answers 408 when it can, or just closes the connection: either way nothing hangs on.
      assert.ok(answer === '' || answer.startsWith('HTTP/1.1 408'), answer);
      assert.ok(ms < 3000, `ended after ${Math.round(ms)} ms`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

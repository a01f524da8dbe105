import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { AuthsvcError, createClient } from '../../src/client/index.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'authsvc-tls-'));
let cert: Buffer;
let server: TestServer;

before(async () => {
  // A self-signed certificate made for this test only.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(dir, 'cert.pem'));
  server = await startTestServer({ config: { tls: { cert, key: readFileSync(join(dir, 'key.pem')) } } });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('TLS', () => {
  it('serves HTTPS when both the certificate and its key are configured', async () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
    const client = createClient({ url: server.url, secret: server.secret, ca: cert });
    const reply = await client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.1' });
    assert.equal(reply.success, false);
    assert.equal(!reply.success && reply.failure_reason, 'session does not exist or expired');
    client.close();
  });

  it('is refused by a client that does not trust the certificate', async () => {
    const client = createClient({ url: server.url, secret: server.secret });
    await assert.rejects(
      client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.1' }),
      (e: unknown) => e instanceof AuthsvcError && e.kind === 'network',
    );
    client.close();
  });

  it('refuses TLS older than 1.2 and plain HTTP', async () => {
    const port = Number(new URL(server.url).port);
    await assert.rejects(
      new Promise((resolve, reject) => {
        const socket = connect(
          { host: '127.0.0.1', port, ca: cert, servername: 'localhost', minVersion: 'TLSv1', maxVersion: 'TLSv1.1' },
          () => resolve(socket),
        );
        socket.on('error', reject);
      }),
    );
    await assert.rejects(fetch(server.url.replace('https:', 'http:'), { method: 'POST', body: 'x' }));
  });
});

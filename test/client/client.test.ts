import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuthsvcError, createClient } from '../../src/client/index.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey, openJson, parseKeyring, sealJson } from '../../src/protocol/index.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ config: { maxBodySize: 4096 } });
});
after(() => server.close());

/** A peer that misbehaves on purpose: answers every request with `reply`. */
async function peer(
  reply: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const s = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => reply(req, Buffer.concat(chunks).toString('latin1'), res));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`, server: s };
}

async function rejectsWith(
  promise: Promise<unknown>,
  kind: string,
  extra: (e: AuthsvcError) => void = () => {},
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AuthsvcError, String(error));
    assert.equal(error.kind, kind, error.message);
    extra(error);
    return true;
  });
}

describe('authsvc/client', () => {
  it('sends typed actions and returns the decrypted envelope', async () => {
    // The server's frozen clock starts at the real time, so the client's own stamps are fresh.
    const client = createClient({ url: server.url, secret: server.secret });
    const opened = await client.request(
      'session-new',
      { ip_address: '192.0.2.7', user_agent: 'ua', user_id: 1, expires: 1, extra_info_json: {} },
      { clientIp: '192.0.2.7', reqid: 'client-1' },
    );
    assert.equal(opened.success, true);
    assert.equal(opened.reqid, 'client-1');
    const token = opened.success ? opened.response.session_token : null;
    assert.ok(token);
    const info = await client.request('session-exists', { session_token: token }, { clientIp: '192.0.2.7' });
    assert.equal(info.success && info.response.session_info?.user_id, 1);
    const missing = await client.request('session-exists', { session_token: 'nope' }, { clientIp: '192.0.2.7' });
    assert.equal(missing.success, false);
    assert.equal(!missing.success && missing.failure_reason, 'session does not exist or expired');
  });

  it('refuses a secret that is not a Fernet key', () => {
    assert.throws(() => createClient({ url: server.url, secret: 'hunter2' }), TypeError);
  });

  it('throws unauthorized (401) when the keys differ', async () => {
    const client = createClient({ url: server.url, secret: generateFernetKey() });
    await rejectsWith(
      client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.7' }),
      'unauthorized',
      (e) => assert.equal(e.status, 401),
    );
  });

  it('throws too-large (413) for a body over the server limit', async () => {
    const client = createClient({ url: server.url, secret: server.secret });
    await rejectsWith(
      client.request('session-exists', { session_token: 'x'.repeat(5000) }, { clientIp: '192.0.2.7' }),
      'too-large',
    );
  });

  it('rejects a reply whose reqid differs', async () => {
    const secret = generateFernetKey();
    const keyring = parseKeyring(secret);
    assert.ok(keyring);
    const liar = await peer((_req, body, res) => {
      const opened = openJson(keyring, body, { nowMs: Date.now() });
      assert.ok(opened.ok);
      res.end(sealJson(keyring, { success: true, response: {}, messages: [], reqid: 'someone-else' }));
    });
    try {
      const client = createClient({ url: liar.url, secret });
      await rejectsWith(
        client.request('session-delete', { session_token: 'x' }, { clientIp: '192.0.2.7' }),
        'reqid-mismatch',
      );
    } finally {
      liar.server.close();
    }
  });

  it('reports 429 with Retry-After, 503 and other statuses as errors of their kind', async () => {
    const cases: Array<[number, string, Record<string, string>]> = [
      [429, 'rate-limited', { 'retry-after': '7' }],
      [503, 'unavailable', {}],
      [500, 'server-error', {}],
      [400, 'bad-request', {}],
    ];
    for (const [status, kind, headers] of cases) {
      const p = await peer((_req, _body, res) => {
        res.writeHead(status, headers).end(`HTTP ${status}: no\n`);
      });
      try {
        const client = createClient({ url: p.url, secret: server.secret });
        await rejectsWith(
          client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.7' }),
          kind,
          (e) => {
            assert.equal(e.status, status);
            if (status === 429) assert.equal(e.retryAfterSeconds, 7);
          },
        );
      } finally {
        p.server.close();
      }
    }
  });

  it('rejects an undecryptable reply', async () => {
    const p = await peer((_req, _body, res) => res.end('Z0FBQUFBbotagood'));
    try {
      const client = createClient({ url: p.url, secret: server.secret });
      await rejectsWith(
        client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.7' }),
        'bad-response',
      );
    } finally {
      p.server.close();
    }
  });

  it('times out when the server does not answer', async () => {
    const silent = await peer(() => {
      /* never answers */
    });
    try {
      const client = createClient({ url: silent.url, secret: server.secret, timeoutMs: 200 });
      await rejectsWith(client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.7' }), 'timeout');
    } finally {
      silent.server.closeAllConnections();
      silent.server.close();
    }
  });

  it('reports a network error when nothing listens', async () => {
    const closed = await peer(() => {});
    const url = closed.url;
    await new Promise((r) => closed.server.close(r));
    const client = createClient({ url, secret: server.secret });
    await rejectsWith(client.request('session-exists', { session_token: 'x' }, { clientIp: '192.0.2.7' }), 'network');
  });

  it('imports nothing but src/protocol, node built-ins and TypeBox', () => {
    const seen = new Set<string>();
    const externals = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'/g)) {
        const spec = match[1] ?? '';
        if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        else externals.add(spec.replace(/^(@[^/]+\/[^/]+|[^/]+).*$/, '$1'));
      }
    };
    visit(join(PKG_DIR, 'src', 'client', 'index.ts'));
    for (const file of seen) assert.match(file, /\/src\/(client|protocol)\//, file);
    for (const name of externals) assert.ok(name.startsWith('node:') || name === '@sinclair/typebox', name);
  });
});

/**
 * Signed webhooks: a real HTTP receiver started by the test gets every audit event, signed as Standard
 * Webhooks specifies, and verifies each signature with its own implementation (WebCrypto). A receiver
 * that hangs or answers 500 never slows the server's requests; its events are retried with the same
 * id, then dropped and counted; the queue's bound holds. Frozen clock; back-off and timeouts shrunk.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { auditEventNames } from '../../src/log/audit-catalogue.js';
import { createWebhookSender, parseWebhookSecret, webhookSignature } from '../../src/log/webhooks.js';
import type { AuditRecord } from '../../src/log/audit.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';
import { randomSource } from '../../src/domain/ports.js';
import { GOOD_PASSWORD, openSession } from '../helpers/accounts.js';
import { FrozenClock } from '../helpers/clock.js';
import { startTestServer } from '../helpers/server.js';
import type { LogLine } from '../helpers/server.js';
import { Writable } from 'node:stream';
import { logsWritten } from '../helpers/turns.js';
import { until } from '../helpers/wait.js';

const SECRET_BYTES = randomBytes(32);
const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

type Behaviour = 'ok' | 'fail' | 'hang';

/** A webhook receiver: records each request, answers 204, 500 or never. */
async function receiver(behaviour: Behaviour): Promise<{
  url: string;
  deliveries: Delivery[];
  close(): Promise<void>;
}> {
  const deliveries: Delivery[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (behaviour === 'hang') hanging.push(response);
      else response.writeHead(behaviour === 'ok' ? 204 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The receiver's side, written apart from the server's code: WebCrypto HMAC over `id.timestamp.body`. */
async function verify(secret: string, headers: IncomingHttpHeaders, body: string): Promise<boolean> {
  const key = await crypto.subtle.importKey(
    'raw',
    Buffer.from(secret.replace(/^whsec_/, ''), 'base64'),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const signed = `${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`;
  const mac = Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(signed))).toString('base64');
  // The header may list several space-separated signatures (key rotation): one must match.
  return String(headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${mac}`);
}

function capturedLog(): { logs: LogLine[]; stream: Writable } {
  const logs: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logs, stream };
}

const record = (n: number): AuditRecord => ({
  event: 'login.failed',
  time: new Date(0).toISOString(),
  reqid: n,
  ip: 'digest',
  detail: { action: 'user-login', reason: 'wrong_credentials' },
});

describe('the webhook signature', () => {
  it('matches the Standard Webhooks reference vector', () => {
    const parsed = parseWebhookSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    assert.ok(parsed.ok);
    assert.equal(
      webhookSignature(parsed.key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('refuses secrets that are not whsec_ + base64 of 24 to 64 bytes', () => {
    for (const bad of [
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_not base64!',
      'whsec_c2hvcnQ=',
      `whsec_${'A'.repeat(120)}`,
    ])
      assert.equal(parseWebhookSecret(bad).ok, false, bad);
  });
});

describe('webhook configuration', () => {
  const base = {
    AUTHSVC_SECRET: 'Oa9WUHMEkqvdMwH8NMyoqcj2yS-rf17MpWkq43L5FOs=',
    AUTHSVC_PIISALT: 'test-pii-salt',
    AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
    AUTHSVC_PWNEDURL: 'none',
  };
  it('is off by default', async () => {
    const loaded = await loadConfig([], base);
    assert.ok(loaded.ok, JSON.stringify(loaded));
    assert.equal(loaded.config.webhook, null);
  });
  it('decodes the secret, and refuses a URL without one or a malformed one, saying why', async () => {
    const on = await loadConfig([], {
      ...base,
      AUTHSVC_WEBHOOKURL: 'https://hooks.example.org/a',
      AUTHSVC_WEBHOOKSECRET: SECRET,
    });
    assert.ok(on.ok, JSON.stringify(on));
    assert.deepEqual(on.config.webhook, { url: 'https://hooks.example.org/a', key: SECRET_BYTES });
    const missing = await loadConfig([], { ...base, AUTHSVC_WEBHOOKURL: 'https://hooks.example.org/a' });
    assert.ok(!missing.ok);
    assert.match(missing.problems.join('\n'), /webhooksecret .*is required when webhookurl/);
    const malformed = await loadConfig([], {
      ...base,
      AUTHSVC_WEBHOOKURL: 'https://hooks.example.org/a',
      AUTHSVC_WEBHOOKSECRET: 'whsec_c2hvcnQ=',
    });
    assert.ok(!malformed.ok);
    assert.match(malformed.problems.join('\n'), /webhooksecret .*must decode to 24 to 64 bytes, not 5/);
    const notUrl = await loadConfig([], { ...base, AUTHSVC_WEBHOOKURL: 'ftp://x', AUTHSVC_WEBHOOKSECRET: SECRET });
    assert.ok(!notUrl.ok);
    assert.match(notUrl.problems.join('\n'), /webhookurl .*must be an http\(s\) URL/);
  });
});

describe('audit events as webhooks', () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close();
  });

  it('POSTs every event, signed, with a unique id and the server clock’s timestamp', async () => {
    const hook = await receiver('ok');
    closers.push(() => hook.close());
    const clock = new FrozenClock(Date.UTC(2026, 10, 23, 12, 0, 0, 500));
    const server = await startTestServer({
      clock,
      config: { webhook: { url: hook.url, key: SECRET_BYTES } },
    });
    closers.push(() => server.close());
    const signup = await server.call('user-new', {
      full_name: 'Ada',
      email: 'ada@example.org',
      password: GOOD_PASSWORD,
    });
    assert.ok(signup.success);
    await server.call('user-passcheck-nosession', { email: 'ada@example.org', password: 'wrong' });
    await openSession(server);
    await until('three deliveries', () => hook.deliveries.length === 3);

    const bodies = hook.deliveries.map((d) => JSON.parse(d.body) as Record<string, unknown>);
    assert.deepEqual(
      bodies.map((b) => b['event']),
      ['user.signed-up', 'login.failed', 'session.created'],
    );
    for (const { headers, body } of hook.deliveries) {
      assert.ok(await verify(SECRET, headers, body), 'the signature verifies');
      assert.ok(!(await verify(`whsec_${randomBytes(32).toString('base64')}`, headers, body)), 'not with another key');
      assert.equal(headers['webhook-timestamp'], String(Math.floor(clock.now() / 1000)));
      assert.equal(headers['content-type'], 'application/json');
      assert.ok(!body.includes('ada@example.org') && !body.includes(GOOD_PASSWORD), 'no email or password in clear');
    }
    assert.equal(new Set(hook.deliveries.map((d) => d.headers['webhook-id'])).size, 3, 'one id per event');
    assert.equal(bodies[1]?.['time'], new Date(clock.now()).toISOString());
    assert.deepEqual(bodies[1]?.['detail'], { action: 'user-passcheck-nosession', reason: 'wrong_credentials' });
    assert.equal(typeof bodies[1]?.['email'], 'string');
    assert.deepEqual(server.app.webhook?.stats().delivered, 3);
    assert.ok(auditEventNames.includes(bodies[0]?.['event'] as never));
  });

  it('answers requests at once while the receiver hangs, and drops what is left at shutdown', async () => {
    const hook = await receiver('hang');
    closers.push(() => hook.close());
    const server = await startTestServer({
      config: { webhook: { url: hook.url, key: SECRET_BYTES } },
      // Each attempt would hang 30 s: a request that waited for one could not finish in the bound below.
      webhookTuning: { timeoutMs: 30_000, concurrency: 2, flushMs: 300 },
    });
    const started = performance.now();
    for (let i = 0; i < 10; i++) await openSession(server);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 10_000, `10 requests took ${Math.round(elapsed)} ms while the receiver hangs`);
    await until('two deliveries in flight', () => hook.deliveries.length === 2);
    assert.equal(hook.deliveries.length, 2, 'no more than `concurrency` requests at once');
    assert.equal(server.app.webhook?.stats().pending, 10);
    const closing = performance.now();
    await server.close();
    assert.ok(performance.now() - closing < 10_000, 'the flush at shutdown is bounded');
    assert.deepEqual(server.app.webhook?.stats().dropped, { queue_full: 0, attempts_exhausted: 0, shutdown: 10 });
    await logsWritten();
    assert.ok(server.logs.some((l) => l.message === 'webhook events dropped' && l['shutdown'] === 10));
  });

  it('retries a failing receiver with the same id and signature scheme, then drops and counts the event', async () => {
    const hook = await receiver('fail');
    closers.push(() => hook.close());
    const server = await startTestServer({
      config: { webhook: { url: hook.url, key: SECRET_BYTES } },
      webhookTuning: { attempts: 3, backoffBaseMs: 20, backoffCapMs: 100 },
    });
    closers.push(() => server.close());
    const started = performance.now();
    await openSession(server);
    await openSession(server);
    assert.ok(performance.now() - started < 10_000);
    await until('both events given up', () => server.app.webhook?.stats().dropped.attempts_exhausted === 2);
    const byId = new Map<string, number>();
    for (const d of hook.deliveries) {
      assert.ok(await verify(SECRET, d.headers, d.body));
      const id = String(d.headers['webhook-id']);
      byId.set(id, (byId.get(id) ?? 0) + 1);
    }
    assert.deepEqual([...byId.values()], [3, 3], 'three attempts per event, each under its one id');
    const stats = server.app.webhook?.stats();
    await logsWritten();
    assert.equal(stats?.failedAttempts, 6);
    assert.equal(stats?.pending, 0);
    const dropLines = server.logs.filter((l) => l.message === 'webhook events dropped');
    assert.equal(dropLines.length, 1, 'drops are logged once per window');
    assert.equal(dropLines[0]?.level, 'warn');
    assert.equal(server.logs.filter((l) => l.message === 'webhook delivery failing').length, 1);
  });

  it('holds no more than its bound: the events beyond it are dropped and counted', async () => {
    const hook = await receiver('hang');
    closers.push(() => hook.close());
    const { logs, stream } = capturedLog();
    const sender = createWebhookSender({
      target: { url: hook.url, key: SECRET_BYTES },
      clock: new FrozenClock(),
      random: randomSource,
      log: createLogger(stream),
      tuning: { queueLimit: 3, concurrency: 1, timeoutMs: 30_000, flushMs: 100 },
    });
    for (let i = 0; i < 1000; i++) sender.outlet(record(i));
    assert.deepEqual(sender.stats(), {
      delivered: 0,
      failedAttempts: 0,
      dropped: { queue_full: 997, attempts_exhausted: 0, shutdown: 0 },
      pending: 3,
    });
    await sender.close();
    assert.equal(sender.stats().dropped.shutdown, 3);
    assert.equal(sender.stats().pending, 0);
    await logsWritten();
    const dropLines = logs.filter((l) => l.message === 'webhook events dropped');
    assert.deepEqual(
      dropLines.map((l) => [l['queue_full'], l['shutdown']]),
      [
        [1, 0],
        [996, 3],
      ],
      'one line in the window, then the summary at shutdown',
    );
  });
});

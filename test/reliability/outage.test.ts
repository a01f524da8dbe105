/**
 * The database goes away (docs/design.md#http-status-codes, docs/design.md#bounded-database-waits): actions answer 503
 * with the encrypted standard envelope in about two seconds, /health says `database: down` with 503, and once the
 * database is back the same server answers again, without a restart. The database is cut off by a
 * TCP proxy of this test's own; the shared server is never touched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MysqlTarget, PgTarget } from '../../src/services/store/url.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';

/** The bound this test allows for "about two seconds" on a busy shared machine. */
const BOUND_MS = 4500;

forEachDatabase(
  (db) => {
    let proxy: TcpProxy;
    let server: TestServer;
    let token: string;
    before(async () => {
      const target = (await db.fresh()) as PgTarget | MysqlTarget;
      proxy = await startTcpProxy(target.host, target.port);
      server = await startTestServer({ database: { ...target, host: proxy.host, port: proxy.port } });
      const opened = await server.call('session-new', {
        ip_address: '192.0.2.1',
        user_agent: 'ua',
        user_id: 1,
        expires: 1,
        extra_info_json: {},
      });
      assert.ok(opened.success);
      token = opened.response.session_token;
    });
    after(async () => {
      proxy.restore();
      await server.close();
      await proxy.close();
    });

    /** One session-exists; its HTTP status, decrypted reply and time taken. */
    const exists = async () => {
      const started = performance.now();
      const response = await server.post(
        server.seal({ request: 'session-exists', body: { session_token: token }, reqid: 'r', client_ipaddr: '::1' }),
      );
      const text = await response.text();
      // A plain-text answer here is a bug: say which, with the errors the server logged.
      assert.ok(
        response.status === 200 || response.status === 503,
        `HTTP ${response.status}: ${text.trim()} ${JSON.stringify(server.logs.filter((l) => l.level === 'error'))}`,
      );
      const reply = server.open(text) as Record<string, unknown>;
      return { status: response.status, reply, ms: performance.now() - started };
    };
    const health = async () => {
      const response = await fetch(new URL('/health', server.url));
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    /** Waits (bounded) until the server answers session-exists successfully again. */
    const recovered = async () => {
      for (let i = 0; i < 50; i++) {
        const answer = await exists();
        if (answer.status === 200 && answer.reply['success'] === true) return true;
        await sleep(200);
      }
      return false;
    };

    for (const fault of ['cut', 'blackhole'] as const) {
      describe(fault === 'cut' ? 'the database refuses connections' : 'the network drops every packet', () => {
        it('answers 503 with the encrypted envelope in about two seconds', async (t) => {
          assert.equal((await exists()).status, 200);
          proxy[fault]();
          const times: number[] = [];
          for (let i = 0; i < 3; i++) {
            const answer = await exists();
            times.push(Math.round(answer.ms));
            assert.equal(answer.status, 503);
            assert.equal(answer.reply['success'], false);
            assert.equal(answer.reply['failure_reason'], 'database unavailable');
            assert.equal(answer.reply['reqid'], 'r');
            assert.deepEqual(answer.reply['messages'], [
              'The service is unavailable right now. Please try again in a little while.',
            ]);
            assert.ok(answer.ms < BOUND_MS, `answered in ${Math.round(answer.ms)} ms`);
          }
          t.diagnostic(`503 after ${times.join(', ')} ms`);
        });

        it('answers every request of a burst 503 within 5 s, whatever the action, never 500', async (t) => {
          proxy.restore();
          assert.ok(await recovered());
          proxy[fault]();
          const bodies: Array<[string, Record<string, unknown>]> = [
            ['session-exists', { session_token: token }],
            ['user-login', { session_token: token, email: 'nobody@example.com', password: 'wrong-password-1' }],
            ['user-new', { email: 'burst@example.com', password: 'plinth-orchard-vapour-42', full_name: 'B' }],
            ['user-list', { user_id: null }],
            ['session-new', { ip_address: '192.0.2.9', user_agent: 'ua', user_id: 1, expires: 1, extra_info_json: {} }],
            ['user-lookup-email', { email: 'admin@example.com' }],
          ];
          const started = performance.now();
          const answers = await Promise.all(
            Array.from({ length: 36 }, async (_, i) => {
              const [request, body] = bodies[i % bodies.length] ?? bodies[0]!;
              const response = await server.post(server.seal({ request, body, reqid: `b${i}`, client_ipaddr: '::1' }));
              const text = await response.text();
              return { request, status: response.status, text, retryAfter: response.headers.get('retry-after') };
            }),
          );
          const elapsed = performance.now() - started;
          t.diagnostic(`36 requests answered in ${Math.round(elapsed)} ms`);
          for (const answer of answers) {
            assert.equal(
              answer.status,
              503,
              `${answer.request}: HTTP ${answer.status} ${JSON.stringify(server.logs.filter((l) => l.level === 'error'))}`,
            );
            assert.ok(answer.retryAfter !== null, 'Retry-After');
            const reply = server.open(answer.text) as Record<string, unknown>;
            assert.equal(reply['failure_reason'], 'database unavailable', answer.request);
          }
          assert.ok(elapsed < 5000, `the burst took ${Math.round(elapsed)} ms`);
          assert.equal(server.logs.filter((l) => l.level === 'error').length, 0, 'no 500');
        });

        it('reports database down with 503 on /health within its 1 s budget', async () => {
          const started = performance.now();
          const { status, body } = await health();
          assert.equal(status, 503);
          assert.equal(body['database'], 'down');
          assert.equal(body['status'], 'down');
          assert.ok(performance.now() - started < 2000);
        });

        it('recovers without a restart once the database is back', async () => {
          proxy.restore();
          const started = performance.now();
          assert.ok(await recovered(), 'session-exists works again');
          const ms = performance.now() - started;
          assert.ok(ms < 5000, `serving again ${Math.round(ms)} ms after the database answers`);
          assert.equal((await health()).status, 200);
          assert.equal(server.logs.filter((l) => l.level === 'error').length, 0, 'no 500 on the way');
        });

        it('logs each outage and each recovery once, at warn, the outage with its cause', (t) => {
          const changes = server.logs.filter(
            (l) => l.message === 'database unavailable' || l.message === 'database available again',
          );
          t.diagnostic(
            changes
              .map((l) => (typeof l['cause'] === 'string' ? `${l.message}: ${l['cause']}` : l.message))
              .join(' | '),
          );
          assert.ok(changes.length >= 2);
          changes.forEach((line, i) => {
            assert.equal(line.level, 'warn');
            assert.equal(line.message, i % 2 === 0 ? 'database unavailable' : 'database available again');
            if (i % 2 === 0) assert.ok(typeof line['cause'] === 'string' && line['cause'] !== '');
          });
          assert.equal(changes.length % 2, 0, 'the last outage is over');
        });
      });
    }
  },
  ['pg', 'mysql'],
);

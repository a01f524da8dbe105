/**
 * Database faults DURING load, with a real process (--workers 2) behind a TCP proxy of this test's own
 * (never the shared server): PostgreSQL and MariaDB refusing connections, resetting them and hanging
 * (every packet dropped). While each fault lasts and after it, a steady mixed load gets only 200 or
 * 503 (the encrypted envelope, Retry-After), every request is answered, no process exits or is
 * replaced, and the same processes serve again within 5 s of the database answering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MysqlTarget, PgTarget } from '../../../src/services/store/url.js';
import { forEachDatabase } from '../../helpers/databases.js';
import { openSessionOn } from '../../helpers/process.js';
import type { AuthsvcProcess } from '../../helpers/process.js';
import { keepAlive, sendRaw, spawnOn } from '../../helpers/suite.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import type { TcpProxy } from '../../helpers/tcp-proxy.js';
import { checkAccessBody } from '../../helpers/requests.js';

const FAULT_MS = 2000;
const RECOVERY_BOUND_MS = 5000;
const CLIENTS = 6;
const FAULTS = ['refuse', 'cut', 'blackhole'] as const;
const FAULT_NAMES = { refuse: 'refusing', cut: 'resetting', blackhole: 'hanging' } as const;

interface Outcome {
  readonly phase: string;
  readonly action: string;
  readonly status: number;
  readonly ms: number;
  readonly reason?: unknown;
  readonly retryAfter?: boolean;
  readonly error?: string;
}

forEachDatabase(
  (db) => {
    describe('database faults during load, --workers 2', () => {
      let proxy: TcpProxy;
      let server: AuthsvcProcess;
      let token: string;
      let phase = 'warm-up';
      let running = true;
      const outcomes: Outcome[] = [];
      let load: Promise<unknown>;

      before(async () => {
        const target = (await db.fresh()) as PgTarget | MysqlTarget;
        proxy = await startTcpProxy(target.host, target.port);
        server = await spawnOn({ ...target, host: proxy.host, port: proxy.port }, { workers: 2 });
        token = await openSessionOn(server);

        let n = 0;
        const bodies = (): Array<[string, Record<string, unknown>]> => [
          ['session-exists', { session_token: token }],
          ['user-login', { session_token: token, email: 'nobody@example.com', password: 'wrong-password-1' }],
          ['user-new', { email: `load-${++n}@example.org`, password: 'plinth-orchard-vapour-42', full_name: 'L' }],
          ['user-check-access', checkAccessBody(1, 'superuser')],
          [
            'session-new',
            { ip_address: '192.0.2.9', user_agent: 'ua', user_id: null, expires: 1, extra_info_json: {} },
          ],
          ['user-list', { user_id: null }],
        ];
        const client = async (i: number): Promise<void> => {
          // Half the clients keep their connections alive, half open one per request.
          const agent = i % 2 === 0 ? keepAlive(1) : false;
          let k = i;
          while (running) {
            const [action, body] = bodies()[k++ % 6]!;
            const started = performance.now();
            const at = phase;
            try {
              const sent = await sendRaw(server.port, server.seal(action, body), agent, 15_000);
              const reply = sent.status === 200 || sent.status === 503 ? server.open(sent.text) : {};
              outcomes.push({
                phase: at,
                action,
                status: sent.status,
                ms: performance.now() - started,
                reason: reply['failure_reason'],
                retryAfter: sent.headers['retry-after'] !== undefined,
              });
            } catch (error) {
              outcomes.push({ phase: at, action, status: 0, ms: performance.now() - started, error: String(error) });
            }
            await sleep(20);
          }
          if (agent !== false) agent.destroy();
        };
        load = Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
        await sleep(1000);
      });
      after(async () => {
        running = false;
        await load;
        proxy.restore();
        await server.stop();
        await proxy.close();
      });

      const healthOk = async (): Promise<boolean> => {
        const response = await fetch(new URL('/health', server.url));
        await response.arrayBuffer();
        return response.status === 200;
      };

      for (const fault of FAULTS) {
        it(`answers only 200 or 503 while the database is ${FAULT_NAMES[fault]}, and recovers without a restart`, async (t) => {
          phase = fault;
          proxy[fault]();
          await sleep(FAULT_MS);
          phase = `${fault}: recovering`;
          proxy.restore();
          const restored = performance.now();
          // Recovered: /health says up and a fresh request of every kind succeeds.
          let recoveredMs = Number.NaN;
          while (performance.now() - restored < RECOVERY_BOUND_MS + 5000) {
            if (await healthOk()) {
              const recent = outcomes.filter((o) => o.phase === phase && o.status === 200).length;
              if (recent >= CLIENTS) {
                recoveredMs = performance.now() - restored;
                break;
              }
            }
            await sleep(100);
          }
          phase = `${fault}: after`;
          await sleep(600);

          const during = outcomes.filter((o) => o.phase === fault);
          const mine = outcomes.filter((o) => o.phase.startsWith(fault));
          const count = (s: number): number => mine.filter((o) => o.status === s).length;
          t.diagnostic(
            `${FAULT_NAMES[fault]}: ${mine.length} requests (${count(200)} × 200, ${count(503)} × 503), ` +
              `longest ${Math.round(Math.max(...mine.map((o) => o.ms)))} ms, served again ${Math.round(recoveredMs)} ms after the database answered`,
          );
          assert.deepEqual(
            mine.filter((o) => o.status !== 200 && o.status !== 503),
            [],
            'only 200 and 503, every request answered',
          );
          for (const o of mine.filter((x) => x.status === 503)) {
            assert.equal(o.reason, 'database unavailable', `${o.action}: ${String(o.reason)}`);
            assert.ok(o.retryAfter, 'Retry-After');
          }
          assert.ok(during.filter((o) => o.status === 503).length > 0, 'the fault was felt');
          assert.ok(Math.max(...mine.map((o) => o.ms)) < 6000, 'no request waits more than a few seconds');
          assert.ok(recoveredMs < RECOVERY_BOUND_MS, `served again ${Math.round(recoveredMs)} ms after`);
          assert.ok(
            outcomes.filter((o) => o.phase === `${fault}: after`).every((o) => o.status === 200),
            'all 200 once recovered',
          );
          assert.equal(server.child.exitCode, null, 'the primary runs');
          const health = (await server.health()).body['workers'] as { alive: number; restarts: number };
          assert.deepEqual([health.alive, health.restarts], [2, 0], 'no worker died or was replaced');
        });
      }

      it('answered every request and logged no error', (t) => {
        const answered = outcomes.filter((o) => o.status !== 0).length;
        t.diagnostic(
          `faults survived: ${FAULTS.length} (${FAULTS.map((f) => FAULT_NAMES[f]).join(', ')}); ` +
            `${answered} of ${outcomes.length} requests answered, requests lost: ${outcomes.length - answered}`,
        );
        assert.equal(answered, outcomes.length);
        assert.deepEqual(
          server.logs.filter((l) => l['level'] === 'error' || l['status'] === 500),
          [],
        );
      });
    });
  },
  ['pg', 'mysql'],
);

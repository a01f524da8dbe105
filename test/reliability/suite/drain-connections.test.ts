/**
 * SIGTERM under a steady stream of new connections (issue 26, finding 7; docs/operations/processes.md, the drain):
 * every TCP connection the server accepts gets an HTTP answer, until the process exits. A request is
 * either answered (its own answer, or 503 once the server drains, each closing its connection) or
 * refused at connect (ECONNREFUSED: never accepted); never reset or hung up after its connection
 * was established.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSessionOn, spawnAuthsvc } from '../../helpers/process.js';

/**
 * New connections, each its own request, from this many loops at once, until one is refused at
 * connect after the signal (the stream outlasted the listener), or at most this many in all.
 */
const MAX_ATTEMPTS = 20_000;
const LOOPS = 24;
/** The signal goes out once this many have been answered. */
const SIGNAL_AFTER = 400;

interface Attempt {
  /** Milliseconds after the signal the connection was opened (negative: before). */
  readonly at: number;
  /** The TCP connection was established (a later error is a reset, not a refusal). */
  readonly connected: boolean;
  readonly status?: number;
  readonly connection?: string;
  readonly error?: string;
}

/** One POST on a connection of its own, classified. Never rejects. */
function attempt(port: number, body: string, signalledAt: number): Promise<Attempt> {
  const at = performance.now() - signalledAt;
  return new Promise((resolve) => {
    let connected = false;
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers: { connection: 'close' } },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ at, connected, status: res.statusCode ?? 0, connection: String(res.headers['connection']) }),
        );
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ at, connected, error: `${error.code ?? ''} ${error.message}` }),
        );
      },
    );
    req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ at, connected, error: `${error.code ?? ''} ${error.message}` }),
    );
    req.end(body);
  });
}

const isRefusal = (a: Attempt): boolean => !a.connected && (a.error ?? '').startsWith('ECONNREFUSED');

for (const workers of [1, 2]) {
  describe(`SIGTERM under a stream of new connections with --workers ${workers}`, () => {
    it('answers every connection it accepts; later ones are refused at connect, none is reset', async (t) => {
      const server = await spawnAuthsvc({ workers });
      const token = await openSessionOn(server);
      const body = server.seal('session-exists', { session_token: token });

      let signalledAt = Number.POSITIVE_INFINITY;
      let started = 0;
      const attempts: Attempt[] = [];
      let refusedAfterSignal = false;
      const loop = async (): Promise<void> => {
        while (started < MAX_ATTEMPTS && !refusedAfterSignal) {
          started += 1;
          const result = await attempt(server.port, body, signalledAt);
          attempts.push(result);
          if (result.at >= 0 && isRefusal(result)) refusedAfterSignal = true;
          if (result.error !== undefined) await sleep(5);
        }
      };
      const loops = Array.from({ length: LOOPS }, () => loop());
      while (attempts.filter((a) => a.status !== undefined).length < SIGNAL_AFTER) await sleep(5);
      signalledAt = performance.now();
      server.child.kill('SIGTERM');
      await Promise.all(loops);
      const exit = await server.exited;

      const during = attempts.filter((a) => a.at >= 0);
      const answered = during.filter((a) => a.status !== undefined);
      const refused = during.filter(isRefusal);
      const dropped = attempts.filter((a) => a.error !== undefined && !isRefusal(a));
      const byStatus = new Map<number, number>();
      for (const a of answered) byStatus.set(a.status ?? 0, (byStatus.get(a.status ?? 0) ?? 0) + 1);
      t.diagnostic(
        `${attempts.length - during.length} before the signal; after it ${answered.length} answered ` +
          `(${[...byStatus].map(([s, n]) => `${n} × ${s}`).join(', ')}), ${refused.length} refused at connect, ` +
          `${dropped.length} reset or hung up after connecting; last answer opened at ` +
          `${Math.round(Math.max(...answered.map((a) => a.at)))} ms, first refusal at ` +
          `${Math.round(Math.min(...refused.map((a) => a.at)))} ms` +
          (dropped.length > 0
            ? ` (opened ${Math.round(Math.min(...dropped.map((d) => d.at)))}–` +
              `${Math.round(Math.max(...dropped.map((d) => d.at)))} ms after the signal: ` +
              `${[...new Set(dropped.map((d) => d.error))].join('; ')})`
            : ''),
      );

      assert.deepEqual(exit, { code: 0, signal: null });
      assert.deepEqual(dropped, [], 'every accepted connection was answered');
      assert.ok(refused.length > 0, 'the stream outlasted the listener: later connections were refused');
      for (const a of answered) {
        // A request read within a few milliseconds of the signal may still be answered in full.
        assert.ok(a.status === 200 || a.status === 503, `status ${String(a.status)}`);
        assert.equal(a.connection, 'close', 'an answer given while draining closes its connection');
      }
      assert.ok(
        answered.some((a) => a.at > 50 && a.status === 503),
        'connections opened during the drain were answered 503',
      );
      assert.equal(server.logs.at(-1)?.['message'], 'stopped');
    });
  });
}

/**
 * SIGTERM under load (issue 15, finding 4; docs/design.md#drain), with a real process: every request
 * the server accepted is answered — those in flight at the signal in full, those that arrive during
 * the drain (new connections and kept-alive ones) with a 503 — every answer given while draining
 * carries `Connection: close`, and the last log line is "stopped". A request may be refused
 * (ECONNREFUSED: never accepted), never reset. suite/drain-connections.test.ts holds the stream past the
 * listener's limit.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { headersOnly, openSessionOn, post, spawnAuthsvc } from '../helpers/process.js';
import type { PostResult } from '../helpers/process.js';

/** Load keeps coming for this long after the signal: new connections and kept-alive ones. */
const LOAD_AFTER_SIGNAL_MS = 400;

interface Outcome {
  /** Milliseconds after the signal the request started (negative: before). */
  readonly at: number;
  readonly kind: 'new' | 'kept';
  readonly answer?: PostResult;
  readonly error?: string;
}

for (const workers of [1, 2]) {
  describe(`SIGTERM under load with --workers ${workers}`, () => {
    it('answers every accepted request, closes every drained connection and logs "stopped"', async (t) => {
      const server = await spawnAuthsvc({ workers });
      const token = await openSessionOn(server);
      const body = () => server.seal('session-exists', { session_token: token });
      const pending = await Promise.all(Array.from({ length: 4 }, () => headersOnly(server, body())));

      let signalledAt = Number.POSITIVE_INFINITY;
      let running = true;
      const outcomes: Outcome[] = [];
      const loop = async (kind: Outcome['kind']) => {
        const agent = kind === 'kept' ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
        while (running) {
          const at = performance.now() - signalledAt;
          try {
            outcomes.push({ at, kind, answer: await post(server.url, body(), agent) });
          } catch (error) {
            outcomes.push({ at, kind, error: (error as NodeJS.ErrnoException).code ?? String(error) });
            await sleep(5);
          }
        }
        if (agent !== false) agent.destroy();
      };
      const loops = [
        ...Array.from({ length: 12 }, () => loop('new')),
        ...Array.from({ length: 4 }, () => loop('kept')),
      ];
      while (outcomes.filter((o) => o.answer !== undefined).length < 40) await sleep(10);

      signalledAt = performance.now();
      const signalledAtWall = Date.now();
      server.child.kill('SIGTERM');
      await sleep(100);
      const late = await Promise.all(pending.map((p) => p.finish()));
      await sleep(LOAD_AFTER_SIGNAL_MS - 100);
      running = false;
      await Promise.all(loops);
      const exit = await server.exited;

      const during = outcomes.filter((o) => o.at >= 0);
      const answered = during.filter((o) => o.answer !== undefined);
      const refused = during.filter((o) => o.error === 'ECONNREFUSED');
      t.diagnostic(
        `${outcomes.length - during.length} before the signal; after it ${answered.length} answered ` +
          `(${answered.filter((o) => o.kind === 'new').length} on new connections), ${refused.length} refused, ` +
          `${late.length} in flight at the signal answered`,
      );
      assert.deepEqual(exit, { code: 0, signal: null });
      assert.deepEqual(
        outcomes.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED'),
        [],
        'nothing accepted was dropped',
      );
      for (const answer of late) {
        assert.equal(answer.status, 200, 'a request received before the signal is served');
        assert.equal(server.open(answer.text)['success'], true);
        assert.equal(answer.headers['connection'], 'close', 'a drained answer closes its connection');
      }
      // Each process starts to drain when it logs so ("stopping"; with workers, each worker's "worker draining",
      // which the primary's message reaches later, later still on a loaded machine). A request sent within a few
      // milliseconds of the last of them may be read before that process drains.
      const drainLines = server.logs.filter((l) => l['message'] === (workers === 1 ? 'stopping' : 'worker draining'));
      assert.equal(drainLines.length, workers, 'every process logs that it drains');
      const drainedBy = Math.max(...drainLines.map((l) => Date.parse(String(l['timestamp'])) - signalledAtWall));
      t.diagnostic(`every process draining ${drainedBy} ms after the signal`);
      const drained = answered.filter((a) => a.at > drainedBy + 50);
      assert.ok(drained.length > 0, 'requests arrived while every process drained');
      for (const o of drained) {
        const answer = o.answer as PostResult;
        assert.equal(answer.status, 503, `a ${o.kind} request arriving during the drain is answered 503`);
        assert.equal(answer.headers['connection'], 'close', 'a drained answer closes its connection');
      }
      assert.ok(
        answered.some((o) => o.kind === 'new' && o.at > 20),
        'connections opened during the drain',
      );
      assert.equal(server.logs.at(-1)?.['message'], 'stopped');
    });
  });
}

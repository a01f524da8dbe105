/**
 * `kill -9` during writes on SQLite, several rounds on one database file: every sign-up whose reply
 * said success is there after the restart, and `PRAGMA integrity_check` says ok. A crash may lose a
 * request in flight (its client saw no success), never an acknowledged one.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { envInt, keepAlive, sendRaw, spawnOn, sqliteFile } from '../../helpers/suite.js';

const ROUNDS = envInt('AUTHSVC_KILL_ROUNDS', 4);
const WRITERS = 8;

describe('kill -9 during writes on SQLite', () => {
  const db = sqliteFile();
  after(() => db.remove());
  const acknowledged: string[] = [];
  let inFlightLost = 0;

  for (let round = 1; round <= ROUNDS; round++) {
    it(`round ${round}: keeps every acknowledged sign-up and an intact database`, async (t) => {
      const server = await spawnOn(db.target);
      // Every sign-up acknowledged so far (earlier rounds too) is served by the restarted process.
      const sample = acknowledged.filter((_, i) => i % 25 === 0);
      for (const email of sample) {
        const sent = await sendRaw(server.port, server.seal('user-lookup-email', { email }), false);
        assert.equal(server.open(sent.text)['success'], true, `${email} after the restart`);
      }

      let running = true;
      let n = 0;
      const writer = async (w: number): Promise<void> => {
        const agent = keepAlive(1);
        while (running) {
          const email = `r${round}-w${w}-${++n}@example.org`;
          try {
            const sent = await sendRaw(
              server.port,
              server.seal('user-new', { email, password: 'plinth-orchard-vapour-42', full_name: 'K' }),
              agent,
            );
            const reply = server.open(sent.text);
            assert.equal(reply['success'], true, JSON.stringify(reply));
            acknowledged.push(email);
          } catch (error) {
            // Only the crash may cut a request (no reply at all): until then every sign-up succeeds.
            if (running || (error as NodeJS.ErrnoException).code === 'ERR_ASSERTION') throw error;
            inFlightLost++;
          }
        }
        agent.destroy();
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
      const before = acknowledged.length;
      // Kill at a different moment each round, once writes are flowing.
      while (acknowledged.length - before < 20) await sleep(10);
      await sleep(150 * round);
      running = false;
      server.child.kill('SIGKILL');
      await Promise.all(writers);
      const exit = await server.exited;
      assert.equal(exit.signal, 'SIGKILL');

      const check = new Database(db.target.filename, { readonly: true });
      try {
        assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
        const stored = new Set(
          (check.prepare('SELECT email FROM users').all() as Array<{ email: string }>).map((r) => r.email),
        );
        const missing = acknowledged.filter((email) => !stored.has(email));
        t.diagnostic(
          `round ${round}: ${acknowledged.length - before} sign-ups acknowledged before kill -9, ` +
            `${acknowledged.length} in all, ${missing.length} missing, integrity ok`,
        );
        assert.deepEqual(missing, [], 'every acknowledged sign-up is stored');
      } finally {
        check.close();
      }
    });
  }

  it('serves every acknowledged account after the last crash', async (t) => {
    const server = await spawnOn(db.target);
    try {
      for (const email of acknowledged.filter((_, i) => i % 10 === 0)) {
        const sent = await sendRaw(server.port, server.seal('user-lookup-email', { email }), false);
        assert.equal(server.open(sent.text)['success'], true, email);
      }
    } finally {
      await server.stop();
    }
    const summary = `kill -9 summary: ${ROUNDS} rounds, ${acknowledged.length} acknowledged sign-ups, 0 lost, ${inFlightLost} unacknowledged requests cut by the kill, integrity_check ok`;
    t.diagnostic(summary);
    console.log(summary);
  });
});

/**
 * The process model (docs/design.md#worker-processes, docs/design.md#signals-reach-the-primary-only) with real
 * processes: `--workers 2` serves on one port, lists its workers on /health, replaces a worker that dies, and on
 * SIGTERM answers every request whose headers had arrived before exiting 0.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachDatabase, urlOf } from '../helpers/databases.js';
import { headersOnly, openSessionOn, postOnce, spawnAuthsvc } from '../helpers/process.js';
import type { AuthsvcProcess } from '../helpers/process.js';

type Entry = { slot: number; pid: number | null; state: string; restarts: number };
const workersOf = (body: Record<string, unknown>) =>
  body['workers'] as { expected: number; alive: number; restarts: number; list: Entry[] };

describe('--workers 2', () => {
  it('lists its workers on /health and replaces one that dies', async () => {
    const server = await spawnAuthsvc({ workers: 2 });
    try {
      const first = workersOf((await server.health()).body);
      assert.equal(first.expected, 2);
      assert.equal(first.alive, 2);
      assert.equal(first.restarts, 0);
      assert.deepEqual(
        first.list.map((w) => [w.slot, w.state]),
        [
          [1, 'up'],
          [2, 'up'],
        ],
      );
      const victim = first.list[0]?.pid ?? 0;
      assert.ok(victim > 0 && victim !== server.child.pid);
      process.kill(victim, 'SIGKILL');

      // Wait (bounded) for the replacement: a new pid in slot 1, both up again.
      let report = first;
      for (let i = 0; i < 100; i++) {
        await sleep(100);
        report = workersOf((await server.health()).body);
        if (report.alive === 2 && report.list[0]?.pid !== victim) break;
      }
      assert.equal(report.alive, 2, JSON.stringify(report));
      assert.notEqual(report.list[0]?.pid, victim);
      assert.equal(report.list[0]?.restarts, 1);
      assert.equal(report.restarts, 1);
      assert.ok(server.logs.some((l) => l['message'] === 'worker died; restarting it' && l['pid'] === victim));

      const token = await openSessionOn(server);
      const exists = server.open(
        (await postOnce(server.url, server.seal('session-exists', { session_token: token }))).text,
      );
      assert.equal(exists['success'], true);
    } finally {
      await server.stop();
    }
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });

  it('answers every request whose headers arrived, under load, then exits 0 on SIGTERM', async (t) => {
    const server = await spawnAuthsvc({ workers: 2 });
    const token = await openSessionOn(server);
    const body = () => server.seal('session-exists', { session_token: token });

    // Requests already read by a worker, bodies still to come.
    const pending = await Promise.all(Array.from({ length: 6 }, () => headersOnly(server, body())));

    // 16 clients in a loop, each request on a connection of its own.
    let running = true;
    const outcomes: Array<{ ok: boolean; error?: string; status?: number }> = [];
    const loops = Array.from({ length: 16 }, async () => {
      while (running) {
        try {
          const answer = await postOnce(server.url, body());
          // Requests that arrive once the workers drain are answered 503, closing the connection.
          const ok =
            answer.status === 503
              ? answer.headers['connection'] === 'close'
              : answer.status === 200 && server.open(answer.text)['success'] === true;
          outcomes.push({ ok, status: answer.status });
        } catch (error) {
          // After the signal, a new connection may be refused at connect: it was never accepted.
          outcomes.push({ ok: false, error: (error as NodeJS.ErrnoException).code ?? String(error) });
          if (!running || server.child.exitCode !== null) break;
          await sleep(5);
        }
      }
    });
    while (outcomes.filter((o) => o.ok).length < 50) await sleep(10);

    server.child.kill('SIGTERM');
    await sleep(100); // the workers are draining now
    const late = await Promise.all(pending.map((p) => p.finish()));
    for (const answer of late) {
      assert.equal(answer.status, 200);
      assert.equal(server.open(answer.text)['success'], true);
    }

    const exit = await server.exited;
    running = false;
    await Promise.all(loops);
    assert.deepEqual(exit, { code: 0, signal: null });
    const answered = outcomes.filter((o) => o.status !== undefined);
    assert.ok(answered.length >= 50);
    assert.deepEqual(
      answered.filter((o) => !o.ok),
      [],
      'every answer is a successful session-exists, or a 503 closing its connection',
    );
    const refused = outcomes.filter((o) => o.error !== undefined);
    t.diagnostic(`${answered.length} answered, ${late.length} answered after SIGTERM, ${refused.length} not accepted`);
    for (const failed of refused) {
      assert.equal(failed.error, 'ECONNREFUSED', 'no accepted connection is reset');
    }
  });

  it('stops with exit code 1 when its workers cannot start (the port is taken)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      await assert.rejects(spawnAuthsvc({ workers: 2, port }), /exited with 1 before listening/);
    } finally {
      blocker.close();
    }
  });
});

describe('--workers 1', () => {
  it('is one process that lists itself and exits 0 on SIGINT', async () => {
    const server = await spawnAuthsvc({ workers: 1 });
    const { body } = await server.health();
    assert.deepEqual(workersOf(body), {
      expected: 1,
      alive: 1,
      restarts: 0,
      list: [{ slot: 1, pid: server.child.pid, state: 'up', restarts: 0 }],
    });
    server.child.kill('SIGINT');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });
});

forEachDatabase((db) => {
  describe('--workers 2 on one database', () => {
    let server: AuthsvcProcess;
    before(async () => {
      server = await spawnAuthsvc({ workers: 2, env: { AUTHSVC_AUTHDB: urlOf(await db.fresh()) } });
    });
    after(() => server.stop());
    const ask = async (action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> =>
      server.open((await postOnce(server.url, server.seal(action, body))).text);

    it('loses no concurrent write: 20 edits of one session through two workers keep 20 items', async () => {
      const token = await openSessionOn(server);
      const edits = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          postOnce(
            server.url,
            server.seal('internal-session-edit', { target_session_token: token, update_dict: { [`k${i}`]: i } }),
          ),
        ),
      );
      for (const edit of edits) {
        assert.equal(edit.status, 200);
        assert.equal(server.open(edit.text)['success'], true);
      }
      const stored = await ask('session-exists', { session_token: token });
      const info = (stored['response'] as { session_info: { extra_info_json: object } }).session_info;
      assert.equal(Object.keys(info.extra_info_json).length, 20);
    });

    it('refuses a session revoked through one worker on every worker at once', async () => {
      const here = await openSessionOn(server);
      const lost = await openSessionOn(server);
      const info = await ask('session-exists', { session_token: lost });
      const id = (info['response'] as { session_info: { session_id: string } }).session_info.session_id;
      // Each request on a connection of its own: node:cluster hands new connections to the workers in turn, so
      // four in a row reach both of them.
      const everywhere = async (): Promise<boolean[]> => {
        const seen: boolean[] = [];
        for (let i = 0; i < 4; i++)
          seen.push((await ask('session-exists', { session_token: lost }))['success'] === true);
        return seen;
      };
      assert.deepEqual(await everywhere(), [true, true, true, true]);
      const revoked = await ask('session-revoke', { user_id: 1, session_token: here, target_session_id: id });
      assert.equal(revoked['success'], true, JSON.stringify(revoked));
      assert.deepEqual(await everywhere(), [false, false, false, false]);
    });
  });
});

/**
 * Reloading the policy (SIGHUP): a valid file replaces the policy in force in every process; an
 * invalid one is refused with the lint report in the log, and the old policy stays — also in a worker
 * that starts after the refusal. Real processes, real signals, decisions over HTTP.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { PKG_DIR } from '../../src/package-dir.js';
import { loadPolicyFile } from '../../src/services/policy/load.js';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';
import type { AuthsvcProcess } from '../helpers/process.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { until } from '../helpers/wait.js';

const DEFAULT_POLICY = join(PKG_DIR, 'policy', 'default.json');
const dir = tempDir('reload');

/** The default policy plus a deny rule: the superuser may no longer view datasets, even its own. */
function frozen(): string {
  const doc = JSON.parse(readFileSync(DEFAULT_POLICY, 'utf8')) as Record<string, unknown>;
  doc['rules'] = [
    {
      effect: 'deny',
      roles: ['superuser'],
      items: ['dataset'],
      actions: ['view'],
      reason: 'datasets are frozen for the audit',
    },
  ];
  return JSON.stringify(doc, null, 2);
}
const INVALID = '{\n  "roles": ["superuser", "manage"]\n}\n';

/** user 1 (the seeded superuser) views its own public dataset: allowed by the default policy. */
const VIEW = {
  user_id: 1,
  user_role: 'superuser',
  action: 'view',
  target_name: 'dataset',
  target_owner: 1,
  target_visibility: 'public',
  target_sharedwith: '',
};

describe('reloading the policy in one process', () => {
  it('replaces the policy with a valid file, and refuses an invalid one keeping the old', async () => {
    const path = join(dir, 'in-process.json');
    copyFileSync(DEFAULT_POLICY, path);
    const loaded = loadPolicyFile(path);
    assert.ok(loaded.ok);
    const server = await startTestServer({ config: { permissionsPath: path } });
    try {
      assert.equal((await server.call('user-check-access', VIEW)).success, true);

      writeFileSync(path, frozen());
      const reloaded = server.app.reloadPolicy();
      assert.equal(reloaded.ok, true);
      const denied = await server.call('user-check-access', VIEW);
      assert.equal(denied.success, false);
      assert.deepEqual((denied.response as { explanation: unknown }).explanation, {
        stage: 'policy',
        check: 'denied-by-rule',
        reason: 'datasets are frozen for the audit',
        policy: ['/rules/0'],
      });
      assert.ok(server.logs.some((l) => l.message === 'policy reloaded' && l['path'] === path));

      writeFileSync(path, INVALID);
      const refused = server.app.reloadPolicy();
      assert.equal(refused.ok, false);
      await setImmediate(); // log lines are written in batches, at the end of the event loop's turn
      const log = server.logs.find((l) => l.message === 'policy reload refused; the policy in force stays');
      assert.ok(log);
      assert.equal(log.level, 'error');
      const problems = log['problems'] as string[];
      assert.ok(
        problems.includes(
          `${path}:2:26: /roles/1: "manage" is a reserved name (CASL treats "manage" and "all" as wildcards that would grant everything)`,
        ),
        problems.join('\n'),
      );
      assert.ok(problems.some((p) => p.startsWith(`${path}:1:1: the policy lacks "items"`)));
      // Still the frozen policy.
      assert.equal((await server.call('user-check-access', VIEW)).success, false);
    } finally {
      await server.close();
    }
  });
});

async function decisions(server: AuthsvcProcess, n: number): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const reply = server.open((await postOnce(server.url, server.seal('user-check-access', VIEW))).text);
    answers.push(reply['success'] === true);
  }
  return answers;
}

describe('SIGHUP', () => {
  it('reloads a single process (--workers 1): a valid file replaces, an invalid one is refused', async () => {
    const path = join(dir, 'single.json');
    copyFileSync(DEFAULT_POLICY, path);
    const server = await spawnAuthsvc({ workers: 1, env: { AUTHSVC_PERMISSIONS: path } });
    try {
      assert.deepEqual(await decisions(server, 2), [true, true]);
      writeFileSync(path, frozen());
      server.child.kill('SIGHUP');
      await until('the reload', () => server.logs.some((l) => l['message'] === 'policy reloaded'), 15_000);
      assert.deepEqual(await decisions(server, 2), [false, false]);
      writeFileSync(path, INVALID);
      server.child.kill('SIGHUP');
      await until(
        'the refusal',
        () => server.logs.some((l) => String(l['message']).startsWith('policy reload refused')),
        15_000,
      );
      assert.deepEqual(await decisions(server, 2), [false, false]);
      assert.equal(server.child.exitCode, null, 'still running');
    } finally {
      await server.stop();
    }
  });

  it('reloads with a valid and an invalid file under --workers 2, in every worker and in one started after the refusal', async () => {
    const path = join(dir, 'workers.json');
    copyFileSync(DEFAULT_POLICY, path);
    const server = await spawnAuthsvc({ workers: 2, env: { AUTHSVC_PERMISSIONS: path } });
    try {
      assert.deepEqual(await decisions(server, 4), [true, true, true, true]);

      writeFileSync(path, frozen());
      server.child.kill('SIGHUP');
      const applied = () => server.logs.filter((l) => l['message'] === 'policy reloaded');
      await until('both workers to swap the policy', () => applied().length === 2, 15_000);
      assert.equal(new Set(applied().map((l) => l['pid'])).size, 2, 'two workers');
      assert.ok(server.logs.some((l) => l['message'] === 'policy accepted; sending it to every worker'));
      // New connections alternate between the workers: every answer comes from the new policy.
      assert.deepEqual(await decisions(server, 6), [false, false, false, false, false, false]);

      writeFileSync(path, INVALID);
      server.child.kill('SIGHUP');
      const refusal = () => server.logs.find((l) => String(l['message']).startsWith('policy reload refused'));
      await until('the refusal', () => refusal() !== undefined, 15_000);
      assert.match(
        (refusal()?.['problems'] as string[]).join('\n'),
        /workers\.json:2:26: \/roles\/1: "manage" is a reserved name/,
      );
      assert.equal(applied().length, 2, 'no worker swapped anything');
      assert.deepEqual(await decisions(server, 4), [false, false, false, false]);

      // A worker that dies now restarts with the policy in force, not the invalid file.
      const pids = (await server.health()).body['workers'] as { list: Array<{ pid: number | null }> };
      const victim = pids.list[0]?.pid;
      assert.ok(typeof victim === 'number');
      process.kill(victim, 'SIGKILL');
      await until(
        'the replacement worker',
        () => server.logs.some((l) => l['message'] === 'worker died; restarting it'),
        15_000,
      );
      let healthy = false;
      for (let i = 0; i < 100 && !healthy; i++) {
        const workers = (await server.health()).body['workers'] as { alive: number };
        healthy = workers.alive === 2;
        if (!healthy) await sleep(100);
      }
      // Had it read the invalid file, it could not have started.
      assert.ok(healthy, 'the worker came back');
      assert.deepEqual(await decisions(server, 6), [false, false, false, false, false, false]);
    } finally {
      await server.stop();
    }
  });
});

/**
 * `--workers 2`: the workers ask the cluster primary, so limits and replay refusal are exact across
 * them. The spawned server runs on the test clock (debugmode 1, docs/design.md#a-test-clock): its time is what the test
 * writes in a file, read by every process, so "exactly 150" holds however slow the machine is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';
import type { AuthsvcProcess } from '../helpers/process.js';

describe('admission with --workers 2, on a test clock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-clock-'));
  const clockFile = join(dir, 'now');
  let now = Date.now();
  const setClock = (ms: number): void => {
    now = ms;
    writeFileSync(clockFile, String(ms));
  };
  let server: AuthsvcProcess;
  before(async () => {
    setClock(now);
    server = await spawnAuthsvc({
      workers: 2,
      env: {
        AUTHSVC_DEBUGMODE: '1',
        AUTHSVC_TEST_CLOCK: clockFile,
        AUTHSVC_RATELIMITS: 'session:120;burst:150',
      },
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const sessionNew = (ip: string): string =>
    server.seal('session-new', { ip_address: ip, user_agent: 't', user_id: null }, undefined, {
      nowMs: now,
      clientIp: ip,
    });

  it('passes exactly 150 of 300 session-new from one IP, spread over both workers, then refills exactly', async () => {
    const statuses: number[] = [];
    // One connection per request: the kernel spreads them over the workers.
    for (let i = 0; i < 300; i++) statuses.push((await postOnce(server.url, sessionNew('192.0.2.7'))).status);
    assert.equal(statuses.filter((s) => s === 200).length, 150);
    assert.equal(statuses.indexOf(429), 150);
    const refused = await postOnce(server.url, sessionNew('192.0.2.7'));
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    setClock(now + 500);
    assert.equal((await postOnce(server.url, sessionNew('192.0.2.7'))).status, 200);
    assert.equal((await postOnce(server.url, sessionNew('192.0.2.7'))).status, 429);
    assert.equal((await postOnce(server.url, sessionNew('192.0.2.8'))).status, 200, 'another IP is unaffected');
  });

  it('accepts a captured state-changing token exactly once', async () => {
    const token = sessionNew('192.0.2.9');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await postOnce(server.url, token)).status);
    assert.deepEqual(statuses, [200, 401, 401, 401, 401, 401]);
  });
});

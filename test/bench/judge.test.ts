/**
 * The bench's yardsticks: of the two measurements of the floor and of the hash limit (start and end of
 * a run), the less disturbed one is used, and every ratio and share is taken against it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HashLimit } from '../../bench/lib/hash-limit.js';
import { highestHashLimit, judged, leastFloor } from '../../bench/lib/judge.js';
import type { RawActionPoint } from '../../bench/lib/judge.js';
import type { Point } from '../../bench/lib/measure.js';

const point = (concurrency: number, serverCpuUs: number, rps = 1000): Point => ({
  concurrency,
  requests: rps,
  errors: 0,
  errors_by_reason: {},
  rps,
  p50_ms: 1,
  p90_ms: 2,
  p99_ms: 3,
  max_ms: 4,
  server_cpu_us: serverCpuUs,
  client_cpu_us: 100,
  window_us: [0, 1],
});

const limit = (verifyCpuMs: number, parallelPerSecond: number, parallelVerifyCpuMs: number): HashLimit => ({
  passhash: 'argon2id:m=19456,t=2,p=1',
  verifyCpuMs,
  cores: 2,
  perSecond: 2000 / verifyCpuMs,
  parallelPerSecond,
  parallelVerifyCpuMs,
});

describe('bench yardsticks', () => {
  it('takes, at each concurrency, the floor measurement that used less CPU per request', () => {
    const start = [point(16, 90), point(64, 95)];
    const end = [point(16, 110), point(64, 88)];
    assert.deepEqual(
      leastFloor(start, end).map((p) => [p.concurrency, p.server_cpu_us]),
      [
        [16, 90],
        [64, 88],
      ],
    );
  });

  it('takes the least CPU of one verify alone and the most the hashes reached at once, from either measurement', () => {
    const best = highestHashLimit(limit(22.8, 95, 19.9), limit(19.2, 82, 21.0));
    assert.equal(best.verifyCpuMs, 19.2);
    assert.equal(best.perSecond, 2000 / 19.2);
    assert.equal(best.parallelPerSecond, 95);
    assert.equal(best.parallelVerifyCpuMs, 19.9);
  });

  it('sets a read against the bare floor and the floor with a read, at its own concurrency', () => {
    const floors = { bare: [point(16, 100), point(64, 80)], read: [point(16, 125)], write: [point(16, 150)] };
    const raw: RawActionPoint = { action: 'session-exists', ...point(16, 180) };
    const judgedPoint = judged(raw, floors, limit(20, 90, 21));
    assert.equal(judgedPoint.floor_ratio, 1.8);
    assert.equal(judgedPoint.db_floor_ratio, 1.44);
    assert.equal(judgedPoint.hash_share, null);
    assert.equal(judgedPoint.parallel_hash_share, null);
  });

  it('sets session-new against the floor with a write', () => {
    const floors = { bare: [point(16, 100)], read: [point(16, 125)], write: [point(16, 150)] };
    assert.equal(judged({ action: 'session-new', ...point(16, 165) }, floors, limit(20, 90, 21)).db_floor_ratio, 1.1);
  });

  it('gives a password check its shares of the hash limit and no ratio to a database floor', () => {
    const floors = { bare: [point(16, 100)], read: [point(16, 125)], write: [point(16, 150)] };
    const login = judged({ action: 'user-login', ...point(16, 20_000, 90) }, floors, limit(20, 90, 21));
    assert.equal(login.hash_share, 0.9); // 90/s of 2 cores ÷ 20 ms = 100/s
    assert.equal(login.parallel_hash_share, 1);
    assert.equal(login.db_floor_ratio, null);
    assert.equal(login.floor_ratio, 200);
  });

  it('leaves a ratio unset when no floor was measured at that concurrency', () => {
    const floors = { bare: [point(64, 100)], read: [], write: [] };
    const judgedPoint = judged({ action: 'user-check-limit', ...point(16, 150) }, floors, limit(20, 90, 21));
    assert.equal(judgedPoint.floor_ratio, null);
    assert.equal(judgedPoint.db_floor_ratio, null);
  });
});

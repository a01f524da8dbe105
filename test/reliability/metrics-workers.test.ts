/**
 * /metrics with `--workers 2`: whichever worker a scrape reaches, it answers the sum over every
 * process (asked through the primary). Requests on fresh connections are spread over both workers by
 * node:cluster, so a figure that were one worker's alone would be about half the requests sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseScrape, sampleValue } from '../helpers/metrics.js';
import type { Sample } from '../helpers/metrics.js';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';

const SESSION = { ip_address: '192.0.2.1', user_agent: 'ua', user_id: null, expires: 1, extra_info_json: {} };

async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(new URL('/metrics', url), { headers: { connection: 'close' } });
  assert.equal(response.status, 200);
  return parseScrape(await response.text());
}

describe('--workers 2: /metrics', () => {
  it('answers the exact sum over the workers, from whichever worker, and counts a reload once', async () => {
    const server = await spawnAuthsvc({
      workers: 2,
      env: { AUTHSVC_METRICS: '1', AUTHSVC_PWNEDURL: 'none', AUTHSVC_SERVERNAME: 'authsvc.test' },
    });
    try {
      const sent = 24;
      for (let batch = 0; batch < sent / 4; batch++) {
        const results = await Promise.all(
          Array.from({ length: 4 }, () => postOnce(server.url, server.seal('session-new', SESSION))),
        );
        for (const result of results) assert.equal(result.status, 200, result.text);
      }
      assert.equal((await postOnce(server.url, 'garbage')).status, 401);
      assert.equal((await postOnce(server.url, server.seal('no-such-action', {}))).status, 400);

      // Several scrapes, on fresh connections: each reaches one worker or the other, all see the sum.
      for (let i = 0; i < 4; i++) {
        const samples = await scrape(server.url);
        assert.equal(sampleValue(samples, 'authsvc_metrics_processes'), 3, 'the primary and both workers');
        assert.equal(
          sampleValue(samples, 'authsvc_requests_total', { action: 'session-new', outcome: 'success' }),
          sent,
        );
        assert.equal(sampleValue(samples, 'authsvc_requests_total', { action: 'unknown', outcome: 'invalid' }), 1);
        assert.equal(sampleValue(samples, 'authsvc_transport_refused_total', { reason: 'undecryptable' }), 1);
        assert.equal(sampleValue(samples, 'authsvc_request_duration_seconds_count', { action: 'session-new' }), sent);
        assert.equal(sampleValue(samples, 'authsvc_database_up'), 1);
      }

      // SIGHUP goes to the primary, which decides once for every worker: one reload, not one per process.
      server.child.kill('SIGHUP');
      for (let i = 0; i < 100 && !server.logs.some((l) => l['audit'] === 'policy.reloaded'); i++) await sleep(50);
      const samples = await scrape(server.url);
      assert.equal(sampleValue(samples, 'authsvc_policy_reloads_total', { result: 'ok' }), 1);
      assert.equal(sampleValue(samples, 'authsvc_policy_reloads_total', { result: 'refused' }), 0);
    } finally {
      await server.stop();
    }
  });
});

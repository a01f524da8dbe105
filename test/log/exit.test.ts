/**
 * Log lines are written in batches, so a stopping process must not lose the last ones: after
 * SIGTERM the request lines and the final "stopped" line are all there, with one process and with
 * a primary and its workers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';

for (const workers of [1, 2]) {
  describe(`stopping with --workers ${workers}`, () => {
    it('keeps every line: the last requests, then "stopped" last', async () => {
      const server = await spawnAuthsvc({ workers });
      const closed = new Promise<void>((resolve) => server.child.on('close', () => resolve()));
      for (let i = 0; i < 5; i++) {
        const answer = await postOnce(server.url, server.seal('session-exists', { session_token: 'x' }, `last-${i}`));
        assert.equal(answer.status, 200);
      }
      server.child.kill('SIGTERM');
      await closed; // every byte of its standard output has been read
      const requests = server.logs.filter((l) => l['message'] === 'request' && String(l['reqid']).startsWith('last-'));
      assert.equal(requests.length, 5, 'the request lines written just before the signal');
      assert.equal(server.logs.at(-1)?.['message'], 'stopped');
      assert.equal(server.logs.at(-1)?.['code'], 0);
    });
  });
}

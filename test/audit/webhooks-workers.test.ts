/**
 * Webhooks with `--workers 2`, real processes: each worker sends its own requests' events, the primary
 * sends each policy reload once (accepted or refused), all signed with the configured secret.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PKG_DIR } from '../../src/package-dir.js';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';
import { until } from '../helpers/wait.js';

const KEY = randomBytes(32);
const dir = tempDir('hooks-workers');

describe('webhooks with --workers 2', () => {
  it('delivers every worker’s events and each policy reload once, signed', async () => {
    const events: { event: string; valid: boolean }[] = [];
    const hook = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const signed = `${String(request.headers['webhook-id'])}.${String(request.headers['webhook-timestamp'])}.${body}`;
        const expected = `v1,${createHmac('sha256', KEY).update(signed).digest('base64')}`;
        events.push({
          event: String((JSON.parse(body) as { event: unknown }).event),
          valid: request.headers['webhook-signature'] === expected,
        });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const path = join(dir, 'policy.json');
    copyFileSync(join(PKG_DIR, 'policy', 'default.json'), path);
    const server = await spawnAuthsvc({
      workers: 2,
      env: {
        AUTHSVC_PERMISSIONS: path,
        AUTHSVC_WEBHOOKURL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`,
        AUTHSVC_WEBHOOKSECRET: `whsec_${KEY.toString('base64')}`,
      },
    });
    try {
      const body = { ip_address: '192.0.2.1', user_agent: 'x', user_id: null, expires: 1, extra_info_json: {} };
      // New connections alternate between the workers.
      for (let i = 0; i < 4; i++) {
        const reply = server.open((await postOnce(server.url, server.seal('session-new', body))).text);
        assert.equal(reply['success'], true);
      }
      const named = (name: string) => events.filter((e) => e.event === name);
      await until('four session events', () => named('session.created').length === 4, 15_000);

      server.child.kill('SIGHUP');
      await until('the reload event', () => named('policy.reloaded').length === 1, 15_000);
      writeFileSync(path, '{\n  "roles": ["superuser", "manage"]\n}\n');
      server.child.kill('SIGHUP');
      await until('the refusal event', () => named('policy.reload-refused').length === 1, 15_000);
      await sleep(500);
      assert.equal(named('policy.reloaded').length, 1, 'one event per reload, not one per worker');
      assert.ok(
        events.every((e) => e.valid),
        'every signature verifies',
      );
    } finally {
      await server.stop();
      hook.closeAllConnections();
      hook.close();
    }
  });
});

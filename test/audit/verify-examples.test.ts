/**
 * The signature checks docs/operations/audit-events.md shows, run as written: the TypeScript one (through tsx) and the
 * Python one (with python3, when present) accept the Standard Webhooks reference vector and a real
 * delivery of this server, and refuse a tampered body, another key and a stale timestamp.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseWebhookSecret } from '../../src/log/webhooks.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { openSession } from '../helpers/accounts.js';
import { FrozenClock } from '../helpers/clock.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
const doc = readFileSync(join(PKG_DIR, 'docs', 'operations', 'audit-events.md'), 'utf8');
const section = doc.slice(doc.indexOf('\n## Verifying a signature'));
const webhooks = doc.slice(doc.indexOf('\n## Webhooks'), doc.indexOf('\n## Verifying a signature'));

/** The one fenced block of `language` in the verification section. */
function block(language: string): string {
  const found = [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))];
  assert.ok(found.length >= 1, `a ${language} block`);
  return found[0]?.[1] ?? '';
}

interface Case {
  readonly name: string;
  readonly secret: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly now: number;
  readonly valid: boolean;
}

const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  headers: {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  },
  body: '{"test": 2432232314}',
};

const dir = tempDir('verify');

const hasOpenssl = spawnSync('bash', ['-c', 'command -v openssl']).status === 0;
describe('the secret docs/operations/audit-events.md makes', () => {
  it('is one start-up accepts', { skip: hasOpenssl ? false : 'openssl is not installed' }, () => {
    const command = /^```sh\n(.*)\n```/m.exec(webhooks)?.[1] ?? '';
    assert.match(command, /^echo "whsec_/);
    const made = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
    const parsed = parseWebhookSecret(made.stdout.trim());
    assert.ok(parsed.ok && parsed.key.length === 32, made.stdout);
  });
});

describe('the signature checks of docs/operations/audit-events.md', () => {
  const cases: Case[] = [];

  before(async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const received: { headers: Record<string, string>; body: string }[] = [];
    const hook = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers: Record<string, string> = {};
        for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
          headers[name] = String(request.headers[name]);
        received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const clock = new FrozenClock();
    const server = await startTestServer({
      clock,
      config: {
        webhook: {
          url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`,
          key: Buffer.from(secret.slice(6), 'base64'),
        },
      },
    });
    try {
      await openSession(server);
      for (let i = 0; i < 500 && received.length === 0; i++) await sleep(20);
    } finally {
      await server.close();
      hook.close();
    }
    const real = received[0];
    assert.ok(real, 'a delivery arrived');
    const now = Math.floor(clock.now() / 1000);
    const vectorNow = Number(VECTOR.headers['webhook-timestamp']);
    cases.push(
      { name: 'the reference vector', ...VECTOR, now: vectorNow, valid: true },
      { name: 'the vector, body changed', ...VECTOR, body: '{"test": 2432232315}', now: vectorNow, valid: false },
      { name: 'the vector, ten minutes later', ...VECTOR, now: vectorNow + 600, valid: false },
      { name: 'a real delivery', secret, ...real, now, valid: true },
      {
        name: 'a real delivery, another key',
        ...real,
        secret: `whsec_${randomBytes(32).toString('base64')}`,
        now,
        valid: false,
      },
    );
    writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  });

  it('in TypeScript', async () => {
    const program = join(dir, 'verify.ts');
    writeFileSync(
      program,
      `${block('ts')}
import { readFileSync } from 'node:fs';
const cases = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as {
  secret: string; headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
  body: string; now: number;
}[];
for (const c of cases) console.log(verifyWebhook(c.secret, c.headers, c.body, c.now));
`,
    );
    const { stdout } = await run(join(PKG_DIR, 'node_modules', '.bin', 'tsx'), [program, join(dir, 'cases.json')]);
    assert.deepEqual(
      stdout.trim().split('\n'),
      cases.map((c) => String(c.valid)),
      cases.map((c) => c.name).join(', '),
    );
  });

  const python = spawnSync('python3', ['-c', 'import sys; assert sys.version_info >= (3, 9)']).status === 0;
  it('in Python', { skip: python ? false : 'python3 (3.9 or later) is absent' }, async () => {
    const program = join(dir, 'verify.py');
    writeFileSync(
      program,
      `${block('python')}

import json
import sys

for c in json.load(open(sys.argv[1])):
    print("true" if verify_webhook(c["secret"], c["headers"], c["body"].encode(), c["now"]) else "false")
`,
    );
    const { stdout } = await run('python3', [program, join(dir, 'cases.json')]);
    assert.deepEqual(
      stdout.trim().split('\n'),
      cases.map((c) => String(c.valid)),
      cases.map((c) => c.name).join(', '),
    );
  });
});

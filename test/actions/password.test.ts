import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let range: Server;
const leaked = 'correct-horse-battery-staple';

before(async () => {
  // A local k-anonymity range API that knows one leaked password.
  const digest = createHash('sha1').update(leaked).digest('hex').toUpperCase();
  range = createServer((req, res) => {
    res.end((req.url ?? '').endsWith(digest.slice(0, 5)) ? `${digest.slice(5)}:120\r\nABC:1` : 'ABC:1');
  });
  await new Promise<void>((r) => range.listen(0, '127.0.0.1', r));
  const pwnedUrl = `http://127.0.0.1:${(range.address() as AddressInfo).port}/range/`;
  server = await startTestServer({ config: { pwnedUrl, serverName: 'auth.example.org' } });
});
after(async () => {
  await server.close();
  range.close();
});

const validate = (password: string, extra: Record<string, unknown> = {}) =>
  server.call('user-validatepass', { password, email: 'jane@example.org', full_name: 'Jane Doe', ...extra });

describe('user-validatepass', () => {
  it('accepts a good password', async () => {
    const reply = await validate('plinth-orchard-vapour-42');
    assert.equal(reply.success, true);
    assert.deepEqual(reply.messages, ['Your password is acceptable.']);
    assert.deepEqual(reply.response, {});
  });

  it('refuses a weak password, explaining every broken rule', async () => {
    const reply = await validate('11111111');
    assert.equal(reply.success, false);
    assert.equal(!reply.success && reply.failure_reason, 'password is insecure or invalid');
    assert.deepEqual(reply.messages, [
      'Your password is too short. It must have at least 12 characters.',
      'Your password is on the list of the most common passwords and is vulnerable to guessing.',
      'Your password is not complex enough. One or more characters appear appear too frequently.',
      'Your password cannot be all numbers.',
    ]);
  });

  it('refuses a compromised password found by the range API', async () => {
    const reply = await validate(leaked);
    assert.equal(reply.success, false);
    assert.match(reply.messages[0] ?? '', /found with 120 matches/);
  });

  it("uses the request's thresholds, else 12 and 30", async () => {
    // "mapple-jane-41x" is at most 34.8 % similar to the server's name, the email and the name.
    assert.equal((await validate('mapple-jane-41x')).success, false, 'similarity ≥ 30 by default');
    assert.equal((await validate('mapple-jane-41x', { max_unsafe_similarity: 35 })).success, true);
    assert.equal((await validate('short-pw-7q')).success, false, 'eleven characters < 12');
    assert.equal((await validate('short-pw-7q', { min_pass_length: 8 })).success, true);
    assert.equal((await validate(leaked, { min_pwned_matches: 1000 })).success, true);
    assert.equal((await validate('abcabcabc-xyz', { max_character_frequency: 0.1 })).success, false);
  });

  it('explains a password over 1024 characters; refuses over 4096 as a bad item', async () => {
    const long = await validate('aB3$'.repeat(300));
    assert.deepEqual(long.messages, ['Your password is too long. It must have at most 1024 characters.']);
    const huge = await validate('x'.repeat(4097));
    assert.equal(!huge.success && huge.failure_reason, 'invalid request parameters');
  });

  it('refuses out-of-range thresholds', async () => {
    for (const extra of [
      { min_pass_length: 0 },
      { max_unsafe_similarity: 101 },
      { max_character_frequency: 0 },
      { min_pwned_matches: 0 },
      { min_pass_length: '12' },
    ]) {
      const reply = await validate('plinth-orchard-vapour-42', extra);
      assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(extra));
    }
  });
});

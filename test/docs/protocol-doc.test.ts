/**
 * docs/protocol.md against the code it describes: the status table lists every status authsvc answers with (200
 * and the plain-text ones of src/http/plain.ts), and `client_ipaddr` is described as the envelope check treats it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PLAIN_STATUSES } from '../../src/http/plain.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { checkEnvelope } from '../../src/protocol/index.js';

const text = readFileSync(join(PKG_DIR, 'docs', 'protocol.md'), 'utf8');

describe('docs/protocol.md', () => {
  it('lists every HTTP status authsvc answers with in its status table, and no other', () => {
    const section = text.slice(
      text.indexOf('## HTTP status codes'),
      text.indexOf('\n## ', text.indexOf('## HTTP status codes') + 1),
    );
    const listed = [...section.matchAll(/^\| (\d{3}) +\|/gm)].map((m) => Number(m[1])).sort();
    assert.deepEqual(listed, [200, ...PLAIN_STATUSES].sort());
  });

  it('says that `client_ipaddr` is required only while rate limiting is on, as the envelope check does', () => {
    const envelope = { request: 'session-exists', body: { session_token: 't' }, reqid: 1 };
    assert.equal(checkEnvelope(envelope, true).ok, false, 'with rate limiting on, no client_ipaddr is a 400');
    assert.equal(checkEnvelope(envelope, false).ok, true, 'with rate limiting off, it may be absent');
    const bullet = /^- `client_ipaddr`:[^\n]*(?:\n {2}[^\n]*)*/m.exec(text)?.[0] ?? '';
    assert.match(bullet.replace(/\s+/g, ' '), /required while rate limiting is on/i, bullet);
    assert.match(bullet, /`ratelimits`/, 'names the item that turns rate limiting off');
  });
});

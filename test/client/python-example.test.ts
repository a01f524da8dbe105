import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PKG_DIR } from '../../src/package-dir.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';
import { GOOD_PASSWORD, verifiedUser } from '../helpers/accounts.js';

const run = promisify(execFile);
const EXAMPLE = join(PKG_DIR, 'examples', 'python', 'api_keys.py');
const SECOND_FACTOR = join(PKG_DIR, 'examples', 'python', 'second_factor.py');
const python = spawnSync('python3', ['-c', 'import cryptography, requests'], { encoding: 'utf8' });
const missing =
  python.status === 0
    ? false
    : 'python3 with cryptography and requests is absent (apt-get install python3-cryptography python3-requests)';

describe('examples/python', { skip: missing }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await insertUsers(server.app.store, [{ userId: 4, role: 'authenticated' }]);
  });
  after(() => server.close());

  it('issues, verifies, refreshes and revokes API keys over the real protocol', async () => {
    // Asynchronously: the server answering it runs in this process.
    const { stdout } = await run('python3', [EXAMPLE, server.url, '4', 'authenticated'], {
      env: { ...process.env, AUTHSVC_SECRET: server.secret },
      encoding: 'utf8',
    });
    assert.deepEqual(stdout.trim().split('\n'), [
      'session-new ok',
      'apikey-new ok',
      'apikey-verify ok',
      'apikey-revoke ok',
      'apikey-verify failed: ' + 'key validation failed, provided key does not match stored key or has expired',
      'apikey-new-nosession ok',
      'apikey-verify-nosession ok',
      'apikey-refresh-nosession ok',
      'apikey-verify-nosession failed: key validation failed, provided key does not match stored key or has expired',
      'apikey-revokeall-nosession ok',
      'revoked_keys 1',
    ]);
  });

  it('adds an authenticator app and logs in in two steps with a code it computes', async () => {
    const userId = await verifiedUser(server, 'python@example.org');
    const { stdout } = await run('python3', [SECOND_FACTOR, server.url, 'python@example.org'], {
      env: { ...process.env, AUTHSVC_SECRET: server.secret, EXAMPLE_PASSWORD: GOOD_PASSWORD },
      encoding: 'utf8',
    });
    assert.deepEqual(stdout.trim().split('\n'), [
      'session-new ok',
      'user-login ok',
      'session-new ok',
      'user-totp-new ok',
      'user-totp-confirm ok',
      'recovery_codes 10',
      'session-new ok',
      'user-login failed: the password is right; the user has a second factor: finish with user-login-secondfactor',
      'methods totp,recovery',
      'user-login-secondfactor ok',
      `logged in as ${userId} authenticated`,
    ]);
  });
});

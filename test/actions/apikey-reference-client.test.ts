/**
 * The reference's Python client (reference §10.2) against authsvc: the exact payloads it sends — the
 * envelope {request, body, reqid: token_urlsafe(8), client_ipaddr}, with `client_ipaddr` also left in
 * the body, `apiversion` as a string, `not_valid_before` as a float, a string `subject` — and the way it
 * reads replies (success, messages and failure_reason popped; the rest is `response`). It issues,
 * verifies, refreshes and revokes keys of both kinds.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { openSession } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';

interface ClientResponse {
  readonly success: boolean;
  readonly response: Record<string, unknown>;
  readonly messages: readonly string[];
  readonly failure_reason: string | null;
}

/** `Authnzerver.request(type, body)` as the reference's client.py does it. */
async function request(server: TestServer, type: string, body: Record<string, unknown>): Promise<ClientResponse> {
  const reqid = randomBytes(8).toString('base64url');
  const envelope = { request: type, body, reqid, client_ipaddr: body['client_ipaddr'] };
  const reply = await server.post(server.seal(envelope));
  assert.equal(reply.status, 200);
  const decrypted = server.open(await reply.text()) as Record<string, unknown>;
  assert.equal(decrypted['reqid'], reqid);
  const response = { ...(decrypted['response'] as Record<string, unknown>) };
  delete response['success'];
  delete response['messages'];
  delete response['failure_reason'];
  return {
    success: decrypted['success'] === true,
    response,
    messages: decrypted['messages'] as string[],
    failure_reason: (decrypted['failure_reason'] as string | undefined) ?? null,
  };
}

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: db });
    await insertUsers(server.app.store, [{ userId: 4, role: 'authenticated' }]);
  });
  after(() => server.close());

  const client = { client_ipaddr: '198.51.100.20' };
  const owner = { user_id: 4, user_role: 'authenticated' };

  it('issues, verifies and revokes a session-tied key', async () => {
    const session = await openSession(server, 4);
    const issued = await request(server, 'apikey-new', {
      ...client,
      issuer: 'authnzerver-frontend',
      audience: 'api.example.org',
      subject: '/api/v1/data',
      apiversion: '1',
      expires_days: 30,
      not_valid_before: 1.0,
      ...owner,
      ip_address: '198.51.100.20',
      user_agent: 'test agent',
      session_token: session,
    });
    assert.equal(issued.success, true, JSON.stringify(issued));
    const apikeyDict = JSON.parse(String(issued.response['apikey'])) as Record<string, unknown>;
    assert.equal(apikeyDict['ver'], 1);
    assert.equal(typeof issued.response['expires'], 'string');
    server.clock.advance(1000);
    const verified = await request(server, 'apikey-verify', { ...client, apikey_dict: apikeyDict, ...owner });
    assert.equal(verified.success, true, JSON.stringify(verified));
    assert.equal(verified.failure_reason, null);
    const revoked = await request(server, 'apikey-revoke', { ...client, apikey_dict: apikeyDict, ...owner });
    assert.equal(revoked.success, true, JSON.stringify(revoked));
    const again = await request(server, 'apikey-verify', { ...client, apikey_dict: apikeyDict, ...owner });
    assert.equal(again.success, false);
    assert.deepEqual(again.messages, ['API key could not be verified.']);
  });

  it('issues, verifies, refreshes, revokes and revokes all no-session keys', async () => {
    const lifetimes = { expires_seconds: 600, not_valid_before: 0.0, refresh_expires: 3600, refresh_nbf: 0.0 };
    const issued = await request(server, 'apikey-new-nosession', {
      ...client,
      issuer: 'authnzerver-frontend',
      audience: 'api.example.org',
      subject: '/api/v1/data',
      apiversion: '1',
      ...lifetimes,
      ...owner,
      ip_address: '198.51.100.20',
    });
    assert.equal(issued.success, true, JSON.stringify(issued));
    assert.deepEqual(Object.keys(issued.response).sort(), [
      'apikey',
      'expires',
      'refresh_token',
      'refresh_token_expires',
    ]);
    const first = JSON.parse(String(issued.response['apikey'])) as Record<string, unknown>;
    const verified = await request(server, 'apikey-verify-nosession', { ...client, apikey_dict: first, ...owner });
    assert.equal(verified.success, true, JSON.stringify(verified));

    const refreshed = await request(server, 'apikey-refresh-nosession', {
      ...client,
      apikey_dict: first,
      ...owner,
      refresh_token: issued.response['refresh_token'],
      ip_address: '198.51.100.21',
      ...lifetimes,
    });
    assert.equal(refreshed.success, true, JSON.stringify(refreshed));
    const second = JSON.parse(String(refreshed.response['apikey'])) as Record<string, unknown>;
    assert.equal(second['ipa'], '198.51.100.21');
    const old = await request(server, 'apikey-verify-nosession', { ...client, apikey_dict: first, ...owner });
    assert.equal(old.success, false);

    const another = await request(server, 'apikey-new-nosession', {
      ...client,
      issuer: 'authnzerver-frontend',
      audience: 'api.example.org',
      subject: '/api/v1/data',
      apiversion: 1,
      ...lifetimes,
      ...owner,
      ip_address: '198.51.100.20',
    });
    const third = JSON.parse(String(another.response['apikey'])) as Record<string, unknown>;
    const revoked = await request(server, 'apikey-revoke-nosession', { ...client, apikey_dict: third, ...owner });
    assert.equal(revoked.success, true, JSON.stringify(revoked));
    const all = await request(server, 'apikey-revokeall-nosession', { ...client, apikey_dict: second, ...owner });
    assert.equal(all.success, true, JSON.stringify(all));
    assert.equal(all.response['revoked_keys'], 1);
    assert.equal(all.response['deleted_keys'], 1);
  });
});

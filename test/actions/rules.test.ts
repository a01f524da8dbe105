/**
 * The rule DSL through the real protocol: user-check-access and user-check-limit under the
 * document-sharing example (examples/document-sharing), with its allow and deny rules and its
 * JSON-Logic limits; the database checks still follow every allow.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { loadPolicyFile } from '../../src/services/policy/load.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';

const POLICY = join(PKG_DIR, 'examples', 'document-sharing', 'policy.json');
const GRANTED = 'Access request check successful. Access granted: True.';
const DENIED = 'Access request check successful. Access granted: False.';

const ALICE = 1001;
const BOB = 1002; // owns the documents
const REVIEWER = 1003;
const CAROL = 1004; // inactive

interface Explained {
  relation?: string;
  explanation: { stage: string; check: string; reason: string; policy: string[] };
}

describe('rules of a custom policy over the protocol (examples/document-sharing)', () => {
  let server: TestServer;
  before(async () => {
    const loaded = loadPolicyFile(POLICY);
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.problems.join('\n'));
    server = await startTestServer({ config: { permissionsPath: POLICY } });
    await insertUsers(server.app.store, [
      { userId: ALICE, role: 'authenticated' },
      { userId: BOB, role: 'authenticated' },
      { userId: REVIEWER, role: 'reviewer' },
      { userId: CAROL, role: 'authenticated', active: false },
    ]);
  });
  after(() => server.close());

  const access = (body: Record<string, unknown>) =>
    server.call('user-check-access', {
      user_id: ALICE,
      user_role: 'authenticated',
      action: 'edit',
      target_name: 'document',
      target_owner: BOB,
      target_visibility: 'shared',
      target_sharedwith: `${ALICE}`,
      ...body,
    });

  it('grants what an allow rule allows, explained by the rule', async () => {
    const reply = await access({});
    assert.equal(reply.success, true, JSON.stringify(reply));
    assert.deepEqual(reply.messages, [GRANTED]);
    assert.deepEqual(reply.response, {
      relation: 'shared',
      explanation: {
        stage: 'policy',
        check: 'allowed-by-rule',
        reason:
          'colleagues a document is shared with by name may edit it (sharing with everyone through user 2 does not count)',
        policy: ['/rules/0'],
      },
    });
  });

  it('denies what a deny rule denies, over an allow rule, with the rule reason in the explanation only', async () => {
    const reply = await access({ target_sharedwith: `${ALICE}, 2` });
    assert.equal(reply.success, false);
    assert.equal(!reply.success && reply.failure_reason, 'action not permitted');
    assert.deepEqual(reply.messages, [DENIED]);
    assert.deepEqual((reply.response as unknown as Explained).explanation, {
      stage: 'policy',
      check: 'denied-by-rule',
      reason:
        'a document shared with everyone (user 2 listed) is edited by its owner only, even by colleagues listed by name',
      policy: ['/rules/4'],
    });
    const share = await access({ action: 'share' });
    assert.equal((share.response as unknown as Explained).explanation.check, 'denied-by-rule');
  });

  it('still checks the users after a rule allows', async () => {
    const inactiveOwner = await access({ target_owner: CAROL });
    assert.equal(
      !inactiveOwner.success && inactiveOwner.failure_reason,
      'users specified as owner or shared-with not found',
    );
    const wrongRole = await access({ user_role: 'reviewer' });
    assert.equal(wrongRole.success, false);
  });

  it("lets reviewers read private documents, except the administrator's", async () => {
    const review = {
      user_id: REVIEWER,
      user_role: 'reviewer',
      action: 'read',
      target_visibility: 'private',
      target_sharedwith: '',
    };
    const allowed = await access(review);
    assert.equal(allowed.success, true, JSON.stringify(allowed));
    assert.equal((allowed.response as unknown as Explained).explanation.policy[0], '/rules/2');
    const admin = await access({ ...review, target_owner: 1 });
    assert.equal(admin.success, false);
    assert.equal((admin.response as unknown as Explained).explanation.policy[0], '/rules/5');
  });

  it('keeps a draft to its author', async () => {
    const draft = { action: 'read', target_visibility: 'draft', target_sharedwith: '' };
    assert.equal((await access({ ...draft, target_owner: ALICE })).success, true);
    const other = await access(draft);
    assert.equal((other.response as unknown as Explained).explanation.check, 'relationship-gate');
  });

  it('checks JSON-Logic limits', async () => {
    const limit = (role: string, userId: number, value: number) =>
      server.call('user-check-limit', {
        user_id: userId,
        user_role: role,
        limit_name: 'upload_mb',
        value_to_check: value,
      });
    assert.equal((await limit('authenticated', ALICE, 25)).success, true);
    const over = await limit('authenticated', ALICE, 25.5);
    assert.equal(!over.success && over.failure_reason, 'user is over limit');
    assert.deepEqual((over.response as unknown as Explained).explanation, {
      stage: 'policy',
      check: 'limit-failed',
      reason: 'the role "authenticated" has upload_mb as a rule, which the value 25.5 does not satisfy',
      policy: ['/role_policy/authenticated/limits/upload_mb/rule'],
    });
    assert.equal((await limit('reviewer', REVIEWER, 100)).success, true);
    assert.equal((await limit('anonymous', 2, 1)).success, false);
  });
});

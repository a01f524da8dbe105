import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { actionsJsonSchema, actionsJsonSchemaText } from '../../src/docs/actions-schema.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { actionNames } from '../../src/protocol/index.js';

const FILE = join(PKG_DIR, 'docs', 'schemas', 'actions.schema.json');

function validator(action: string, part: 'request' | 'response') {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('text', true).addFormat('ip', true);
  ajv.addSchema(actionsJsonSchema(), 'actions');
  const check = ajv.getSchema(`actions#/$defs/${action}/properties/${part}`);
  assert.ok(check, `${action} ${part}`);
  return check;
}

describe('docs/schemas/actions.schema.json', () => {
  it('is what `npm run docs` generates from the declarations (run it after changing an action)', () => {
    assert.equal(readFileSync(FILE, 'utf8'), actionsJsonSchemaText());
  });
  it('has one $defs entry per action, with its request and response', () => {
    const defs = actionsJsonSchema()['$defs'] as Record<string, { properties: Record<string, unknown> }>;
    assert.deepEqual(Object.keys(defs), actionNames);
    for (const name of actionNames)
      assert.deepEqual(Object.keys(defs[name]?.properties ?? {}), ['request', 'response']);
  });
  it('accepts real replies and tells success from failure (user-login)', () => {
    const response = validator('user-login', 'response');
    const base = { messages: ['Login successful.'], reqid: 1 };
    assert.ok(response({ ...base, success: true, response: { user_id: 4, user_role: 'authenticated' } }));
    assert.equal(response({ ...base, success: true, response: { user_id: null, user_role: null } }), false);
    const reason = "user does not exist or password doesn't match";
    assert.ok(
      response({
        ...base,
        success: false,
        failure_reason: reason,
        response: { user_id: null, user_role: null, failure_reason: reason },
      }),
    );
    assert.equal(response({ ...base, success: false, failure_reason: 'user exists', response: {} }), false);
  });
  it('checks a request body (session-new)', () => {
    const request = validator('session-new', 'request');
    const body = { ip_address: '192.0.2.1', user_agent: 'ua', user_id: null, expires: 7, extra_info_json: null };
    assert.ok(request(body));
    assert.equal(request({ ...body, expires: 0 }), false);
    assert.equal(request({ ...body, ip_address: 7 }), false);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAILURE_CODES, FAILURE_REASONS, failureCodeOf } from '../../src/protocol/index.js';
import { failures } from '../../src/domain/errors.js';
import { httpStatusOf } from '../../src/http/envelope.js';

describe('the failure_reason texts of the protocol', () => {
  it('are what the server catalogue answers, with 503 only when the server cannot serve, else 200', () => {
    for (const code of FAILURE_CODES) {
      assert.equal(failures[code].reason, FAILURE_REASONS[code], code);
      assert.equal(httpStatusOf(code), code === 'db_unavailable' || code === 'busy' ? 503 : 200, code);
    }
    assert.deepEqual(Object.keys(failures).sort(), [...FAILURE_CODES].sort(), 'no code missing, none added');
  });
  it('each stand for one code, which failureCodeOf gives back', () => {
    for (const code of FAILURE_CODES) assert.equal(failureCodeOf(FAILURE_REASONS[code]), code);
    assert.equal(failureCodeOf('no such reason'), null);
  });
});

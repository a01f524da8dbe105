import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAILURE_CODES, FAILURE_REASONS, failureCodeOf } from '../../src/protocol/index.js';
import { failures } from '../../src/domain/errors.js';

describe('the failure_reason texts of the protocol', () => {
  it("are the server catalogue's, code for code", () => {
    for (const code of FAILURE_CODES) assert.equal(FAILURE_REASONS[code], failures[code].reason, code);
  });
  it('each stand for one code, which failureCodeOf gives back', () => {
    for (const code of FAILURE_CODES) assert.equal(failureCodeOf(FAILURE_REASONS[code]), code);
    assert.equal(failureCodeOf('no such reason'), null);
  });
});

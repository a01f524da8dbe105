import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReportGate } from '../../src/services/admission/report-gate.js';

describe('the refusal report gate', () => {
  it('reports a key at most once a minute', () => {
    const gate = new ReportGate();
    assert.equal(gate.shouldReport('ip:a', 0), true);
    assert.equal(gate.shouldReport('ip:a', 59_999), false);
    assert.equal(gate.shouldReport('ip:b', 1), true);
    assert.equal(gate.shouldReport('ip:a', 60_000), true);
  });

  it('stays bounded under many keys', () => {
    const gate = new ReportGate(60_000, 100);
    for (let i = 0; i < 10_000; i++) assert.equal(gate.shouldReport(`k${i}`, 0), true);
    assert.equal(gate.shouldReport('k9999', 1), false);
  });
});

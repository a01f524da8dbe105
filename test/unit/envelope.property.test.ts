import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  decodeBase64,
  generateFernetKey,
  openJson,
  parseKeyring,
  sealJson,
  tokenFromBody,
} from '../../src/protocol/index.js';

const keyring = parseKeyring(generateFernetKey());
const other = parseKeyring(generateFernetKey());
if (keyring === null || other === null) throw new Error('keys');
const now = 1_800_000_000_000;

describe('envelope properties', () => {
  it('round-trips any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const opened = openJson(keyring, sealJson(keyring, value, { nowMs: now }), { nowMs: now, ttlSeconds: 120 });
        assert.ok(opened.ok);
        // JSON cannot hold -0; everything else comes back equal.
        assert.deepEqual(opened.value, JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('refuses any change to one byte of the token', () => {
    const body = sealJson(
      keyring,
      { request: 'session-exists', body: { session_token: 'x' }, reqid: 1 },
      { nowMs: now },
    );
    const token = Buffer.from(tokenFromBody(body) ?? '', 'latin1');
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.integer({ min: 1, max: 255 }), (index, delta) => {
        const mutated = Buffer.from(token);
        mutated[index] = ((mutated[index] ?? 0) + delta) % 256;
        const asBody = mutated.toString('base64');
        assert.equal(openJson(keyring, asBody, { nowMs: now, ttlSeconds: 120 }).ok, false);
        assert.equal(openJson(keyring, mutated.toString('latin1'), { nowMs: now, ttlSeconds: 120 }).ok, false);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any token sealed with another key', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(openJson(keyring, sealJson(other, value, { nowMs: now }), { nowMs: now }).ok, false);
      }),
      { numRuns: 50 },
    );
  });

  it('never throws on arbitrary bodies', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.string({ unit: 'binary' })), (text) => {
        const opened = openJson(keyring, text, { nowMs: now });
        assert.equal(opened.ok, false);
      }),
      { numRuns: 1000 },
    );
  });

  it('decodes base64 strictly: what decodes re-encodes to the same text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ABCab01+/=-_ \n'.split('')) }), (text) => {
        const bytes = decodeBase64(text);
        if (bytes !== null) assert.equal(bytes.toString('base64').replace(/=+$/, ''), text.replace(/=+$/, ''));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses tokens older than the ttl and too far in the future', () => {
    const body = sealJson(keyring, { a: 1 }, { nowMs: now });
    assert.ok(openJson(keyring, body, { nowMs: now + 120_000, ttlSeconds: 120, maxSkewSeconds: 30 }).ok);
    assert.deepEqual(openJson(keyring, body, { nowMs: now + 121_000, ttlSeconds: 120, maxSkewSeconds: 30 }), {
      ok: false,
      reason: 'expired',
    });
    assert.ok(openJson(keyring, body, { nowMs: now - 30_000, ttlSeconds: 120, maxSkewSeconds: 30 }).ok);
    assert.deepEqual(openJson(keyring, body, { nowMs: now - 31_000, ttlSeconds: 120, maxSkewSeconds: 30 }), {
      ok: false,
      reason: 'future',
    });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  newRecoveryCodes,
  newTotpSecret,
  qrSvg,
  recoveryCodeHash,
  totpCodeAt,
  totpStepOf,
  totpUri,
} from '../../src/accounts/second-factor.js';
import { secretBox } from '../../src/accounts/secret-box.js';
import { randomSource } from '../../src/domain/ports.js';
import { generateFernetKey, parseKeyring } from '../../src/protocol/index.js';

/** RFC 6238's SHA-1 seed, "12345678901234567890", in base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP (RFC 6238: SHA-1, 6 digits, 30 s)', () => {
  it("gives the RFC's test vectors (their last 6 digits)", () => {
    const vectors: Array<[number, string]> = [
      [59, '287082'],
      [1_111_111_109, '081804'],
      [1_111_111_111, '050471'],
      [1_234_567_890, '005924'],
      [2_000_000_000, '279037'],
      [20_000_000_000, '353130'],
    ];
    for (const [seconds, code] of vectors) {
      assert.equal(totpCodeAt(RFC_SECRET, seconds * 1000), code, `T = ${seconds}`);
      assert.equal(totpStepOf(RFC_SECRET, code, seconds * 1000), Math.floor(seconds / 30));
    }
  });

  it('accepts one step either side and nothing further', () => {
    const now = 1_234_567_890_000;
    const step = Math.floor(now / 30_000);
    for (const offset of [-1, 0, 1]) {
      const code = totpCodeAt(RFC_SECRET, now + offset * 30_000);
      assert.equal(totpStepOf(RFC_SECRET, code, now), step + offset);
    }
    for (const offset of [-3, -2, 2, 3]) {
      assert.equal(totpStepOf(RFC_SECRET, totpCodeAt(RFC_SECRET, now + offset * 30_000), now), null);
    }
  });

  it('refuses anything but six digits', () => {
    for (const code of ['', '12345', '1234567', '12345a', ' 123456', '１２３４５６'])
      assert.equal(totpStepOf(RFC_SECRET, code, 0), null);
  });

  it('makes 160-bit secrets and an otpauth URI naming issuer and account', () => {
    const secret = newTotpSecret(randomSource);
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(totpUri(secret, 'authsvc.test', 'jane@example.org'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), secret);
    assert.equal(uri.searchParams.get('issuer'), 'authsvc.test');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
  });

  it('draws the URI as an SVG QR code', async () => {
    const svg = await qrSvg('otpauth://totp/x?secret=ABC');
    assert.match(svg, /^<svg[\s\S]*<\/svg>\s*$/);
  });
});

describe('recovery codes', () => {
  it('are ten codes of 16 base32 characters (80 bits) in groups of four', () => {
    const codes = newRecoveryCodes(randomSource);
    assert.equal(codes.length, 10);
    for (const code of codes) assert.match(code, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    assert.equal(new Set(codes).size, 10);
  });

  it('hash the same however they are typed, and differently from each other', () => {
    const [code = ''] = newRecoveryCodes(randomSource);
    const hash = recoveryCodeHash(code);
    assert.match(hash ?? '', /^[0-9a-f]{64}$/);
    assert.equal(recoveryCodeHash(code.toUpperCase().replaceAll('-', ' ')), hash);
    assert.equal(recoveryCodeHash(code.replaceAll('-', '')), hash);
    assert.notEqual(recoveryCodeHash(`${code.slice(0, -1)}${code.endsWith('a') ? 'b' : 'a'}`), hash);
  });

  it('refuse text that cannot be a code', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const bare = text.toLowerCase().replace(/[\s-]/g, '');
        if (/^[a-z2-7]{16}$/.test(bare)) return;
        assert.equal(recoveryCodeHash(text), null);
      }),
    );
  });
});

describe('the secret box (TOTP secrets at rest)', () => {
  const keyring = (text: string) => {
    const parsed = parseKeyring(text);
    assert.ok(parsed);
    return parsed;
  };
  const iv = () => randomSource.bytes(12);

  it('opens what it sealed, and the sealed text does not contain the secret', () => {
    const box = secretBox(keyring(generateFernetKey()));
    const sealed = box.seal('JBSWY3DPEHPK3PXP', iv());
    assert.ok(!sealed.includes('JBSWY3DPEHPK3PXP'));
    assert.equal(box.open(sealed), 'JBSWY3DPEHPK3PXP');
  });

  it('still opens after a key rotation while the old key is listed, and not once it is gone', () => {
    const [oldKey, newKey] = [generateFernetKey(), generateFernetKey()];
    const sealed = secretBox(keyring(oldKey)).seal('secret', iv());
    assert.equal(secretBox(keyring(`${newKey};${oldKey}`)).open(sealed), 'secret');
    assert.equal(secretBox(keyring(newKey)).open(sealed), null);
  });

  it('refuses a sealed text with any byte changed', () => {
    const box = secretBox(keyring(generateFernetKey()));
    const sealed = Buffer.from(box.seal('secret', iv()), 'base64url');
    for (let i = 0; i < sealed.length; i++) {
      const tampered = Buffer.from(sealed);
      tampered[i] = (tampered[i] ?? 0) ^ 1;
      assert.equal(box.open(tampered.toString('base64url')), null, `byte ${i}`);
    }
    assert.equal(box.open(''), null);
  });
});

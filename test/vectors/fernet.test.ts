import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fernetDecrypt, fernetEncrypt, openJson, parseFernetKey, parseKeyring, sealJson } from '../../src/protocol/index.js';

const here = new URL('.', import.meta.url);
const load = (name: string): unknown => JSON.parse(readFileSync(new URL(name, here), 'utf8'));

interface Generate {
  token: string;
  now: string;
  iv: number[];
  src: string;
  secret: string;
}
interface Verify {
  token: string;
  now: string;
  ttl_sec: number;
  src: string;
  secret: string;
}
interface Invalid {
  desc: string;
  token: string;
  now: string;
  ttl_sec: number;
  secret: string;
}
interface Envelope {
  desc: string;
  secret: string;
  iat: number;
  iv_hex: string;
  plaintext: string;
  fernet_token: string;
  http_body: string;
}

const key = (secret: string) => {
  const k = parseFernetKey(secret);
  assert.ok(k, 'vector key parses');
  return k;
};

describe('Fernet (the spec vectors)', () => {
  for (const v of (load('fernet/generate.json') as Generate[])) {
    it(`generates the spec token for "${v.src}"`, () => {
      const token = fernetEncrypt(key(v.secret), Buffer.from(v.src), Date.parse(v.now) / 1000, Uint8Array.from(v.iv));
      assert.equal(token, v.token);
    });
  }
  for (const v of (load('fernet/verify.json') as Verify[])) {
    it(`verifies the spec token for "${v.src}"`, () => {
      const result = fernetDecrypt([key(v.secret)], v.token, { nowMs: Date.parse(v.now), ttlSeconds: v.ttl_sec, maxSkewSeconds: 60 });
      assert.ok(result.ok);
      assert.equal(result.plaintext.toString(), v.src);
    });
  }
  for (const v of (load('fernet/invalid.json') as Invalid[])) {
    it(`refuses: ${v.desc}`, () => {
      const result = fernetDecrypt([key(v.secret)], v.token, { nowMs: Date.parse(v.now), ttlSeconds: v.ttl_sec, maxSkewSeconds: 60 });
      assert.equal(result.ok, false);
    });
  }
  it('decrypts with any key of a rotation list and encrypts with the first', () => {
    const [a, b] = ['cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=', 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8='];
    const old = parseKeyring(b);
    const both = parseKeyring(`${a}; ${b}`);
    assert.ok(old && both);
    const fromOld = sealJson(old, { x: 1 });
    const opened = openJson(both, fromOld, { nowMs: Date.now() });
    assert.ok(opened.ok);
    assert.deepEqual(opened.value, { x: 1 });
    const fromBoth = sealJson(both, { y: 2 });
    assert.equal(openJson(old, fromBoth, { nowMs: Date.now() }).ok, false, 'the first key (a) encrypted it');
  });
  it('refuses key lists with a bad part', () => {
    assert.equal(parseKeyring('cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=;nope'), null);
    assert.equal(parseKeyring(''), null);
    assert.equal(parseKeyring('c3VwZXJzZWNyZXQ='), null, '16 bytes is not a key');
  });
});

describe('envelope (made by the reference)', () => {
  for (const v of (load('envelope.json') as Envelope[])) {
    it(`decodes the ${v.desc}`, () => {
      const keyring = parseKeyring(v.secret);
      assert.ok(keyring);
      const opened = openJson(keyring, v.http_body, { nowMs: v.iat * 1000 });
      assert.ok(opened.ok);
      assert.deepEqual(opened.value, JSON.parse(v.plaintext));
      assert.equal(opened.timestamp, v.iat);
    });
    it(`re-creates the reference's bytes for the ${v.desc}`, () => {
      const token = fernetEncrypt(key(v.secret), Buffer.from(v.plaintext), v.iat, Buffer.from(v.iv_hex, 'hex'));
      assert.equal(token, v.fernet_token);
      assert.equal(Buffer.from(token).toString('base64'), v.http_body);
    });
    it(`accepts the bare token and a trailing newline for the ${v.desc}`, () => {
      const keyring = parseKeyring(v.secret);
      assert.ok(keyring);
      assert.ok(openJson(keyring, v.fernet_token, { nowMs: v.iat * 1000 }).ok);
      assert.ok(openJson(keyring, `${v.http_body}\n`, { nowMs: v.iat * 1000 }).ok);
    });
  }
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfVars } from '../../src/config/confvars.js';
import { flag, int, optional, path, required, structured } from '../../src/config/decoders.js';
import { ITEMS } from '../../src/config/items.js';
import { SHIPPED_CONFVARS } from '../../src/package-dir.js';
import { parsePassHash } from '../../src/config/settings.js';

const item = { label: 'thing (--thing, AUTHSVC_THING)', basedir: '/srv/authsvc' };

describe('the decoder table', () => {
  it('decodes every item of the shipped configuration-variables file with a decoder of its declared type', () => {
    const shipped = loadConfVars(SHIPPED_CONFVARS, '.').items;
    for (const [name, decoder] of Object.entries(ITEMS)) {
      assert.equal(decoder.type, shipped[name]?.type, name);
    }
    const undecoded = Object.keys(shipped).filter((name) => !(name in ITEMS));
    assert.deepEqual(undecoded, ['basedir'], 'basedir is read before the others, to resolve their paths');
  });
});

describe('the decoders', () => {
  it('reads an int item from text or from a number, and names the item and the range when it is out', () => {
    assert.deepEqual(int(1, 10).decode('7', item), { ok: true, value: 7 });
    assert.deepEqual(int(1, 10).decode(3, item), { ok: true, value: 3 });
    assert.deepEqual(int(1, 10).decode('1.5', item), {
      ok: false,
      problem: 'thing (--thing, AUTHSVC_THING) must be an integer from 1 to 10, not "1.5"',
    });
    assert.deepEqual(flag().decode('1', item), { ok: true, value: true });
  });

  it('refuses a missing required str item, and leaves an optional one null', () => {
    assert.deepEqual(required(path).decode(null, item), {
      ok: false,
      problem: 'thing (--thing, AUTHSVC_THING) is required',
    });
    assert.deepEqual(optional(path).decode(null, item), { ok: true, value: null });
    assert.deepEqual(required(path).decode('policy.json', item), { ok: true, value: '/srv/authsvc/policy.json' });
  });

  it('prefixes a structured value’s problem with the item', () => {
    const decoded = required(structured(parsePassHash)).decode('md5:1', item);
    assert.equal(decoded.ok, false);
    assert.match(decoded.ok ? '' : decoded.problem, /^thing \(--thing, AUTHSVC_THING\): "md5:1" is not argon2id/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ITEMS } from '../../src/config/items.js';
import { parseAddressRange, peerMatcher } from '../../src/services/metrics/peers.js';
import type { AddressRange } from '../../src/services/metrics/peers.js';

const item = { label: 'metricsallow (--metricsallow, AUTHSVC_METRICSALLOW)', basedir: '/srv/authsvc' };

function matcher(...texts: string[]): (address: string | undefined) => boolean {
  return peerMatcher(
    texts.map((text) => {
      const range = parseAddressRange(text);
      assert.ok(range !== null, text);
      return range;
    }),
  );
}

const dotted = (n: number): string => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');

describe('metricsallow: who may read /metrics', () => {
  it('matches addresses and CIDR ranges, IPv4 mapped into IPv6 as IPv4', () => {
    const allowed = matcher('127.0.0.0/8', '::1', '10.20.0.5', '2001:db8::/32');
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '10.20.0.5', '2001:db8:1::7']) {
      assert.equal(allowed(address), true, address);
    }
    for (const address of ['10.20.0.6', '192.0.2.1', '::2', '2001:db9::1', '::ffff:10.20.0.4', 'nonsense', undefined]) {
      assert.equal(allowed(address), false, String(address));
    }
  });

  it('refuses what is not an address or a range', () => {
    for (const text of ['', 'localhost', '10.0.0.0/33', '::/129', '10.0.0.0/x', '10.0.0.0/8/8', '10.0.0.0/-1']) {
      assert.equal(parseAddressRange(text), null, text);
    }
    const decoder = ITEMS.metricsallow;
    assert.deepEqual(decoder.decode('10.0.0.0/8; ::1', item), {
      ok: true,
      value: [
        { family: 'ipv4', network: '10.0.0.0', prefix: 8 },
        { family: 'ipv6', network: '::1', prefix: 128 },
      ] satisfies AddressRange[],
    });
    assert.deepEqual(decoder.decode('10.0.0.0/8;intranet', item), {
      ok: false,
      problem: `${item.label}: "intranet" is not an IP address or CIDR range`,
    });
    assert.deepEqual(decoder.decode(' ; ', item), {
      ok: false,
      problem: `${item.label} must name at least one IP address or CIDR range`,
    });
  });

  it('lets in exactly the IPv4 addresses that share the first prefix bits', () => {
    fc.assert(
      fc.property(fc.nat(0xffffffff), fc.nat(0xffffffff), fc.integer({ min: 0, max: 32 }), (network, peer, prefix) => {
        const allowed = matcher(`${dotted(network)}/${prefix}`);
        const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
        assert.equal(allowed(dotted(peer)), ((network ^ peer) & mask) >>> 0 === 0);
        assert.equal(allowed(dotted(network)), true);
      }),
    );
  });
});

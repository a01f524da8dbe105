import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffKey, ipKey } from '../../src/services/admission/buckets.js';
import { DEFAULT_RATE_POLICY } from '../../src/services/admission/rate-limits.js';
import { buckets, policy } from './fixtures.js';

describe('bucket keys', () => {
  it('key IPv4-mapped IPv6 as IPv4 and other IPv6 by /64', () => {
    assert.equal(ipKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(ipKey('::FFFF:c000:0201'), '192.0.2.1');
    assert.equal(ipKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(ipKey('2001:DB8:1:2::9'), '2001:db8:1:2::/64');
    assert.equal(ipKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(ipKey('::1'), '0:0:0:0::/64');
    assert.equal(ipKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  });

  it('give one request its IP, group, per-action and per-email buckets', () => {
    const list = buckets(DEFAULT_RATE_POLICY, 'user-sendemail-forgotpass', '192.0.2.1', { email: 'A@Example.org' });
    assert.deepEqual(
      list.map((b) => [b.key.split(':').slice(0, -1).join(':'), b.perMinute, b.burst]),
      [
        ['ip', 720, 150],
        ['g:user', 480, 150],
        ['a:user-sendemail-forgotpass', 2, 2],
        ['e:user-sendemail-forgotpass', 2, 2],
      ],
    );
    const same = buckets(DEFAULT_RATE_POLICY, 'user-sendemail-forgotpass', '198.51.100.1', { email: 'a@example.org' });
    assert.equal(same[3]?.key, list[3]?.key, 'the email is normalised as at sign-up');
  });

  it('key the group by the first item present, with the IP', () => {
    const rates = DEFAULT_RATE_POLICY;
    const byTkn = buckets(rates, 'apikey-verify', '192.0.2.1', { apikey_dict: { tkn: 't1' }, session_token: 's' });
    const byObj = buckets(rates, 'apikey-verify', '192.0.2.1', { apikey_dict: { tkn: 't1' } });
    const bySession = buckets(rates, 'apikey-verify', '192.0.2.1', { session_token: 's' });
    const otherIp = buckets(rates, 'apikey-verify', '192.0.2.2', { apikey_dict: { tkn: 't1' } });
    assert.equal(byTkn[1]?.key, byObj[1]?.key);
    assert.notEqual(byTkn[1]?.key, bySession[1]?.key);
    assert.notEqual(byTkn[1]?.key, otherIp[1]?.key);
    assert.equal(buckets(rates, 'internal-user-edit').length, 1, 'internal actions: per IP only');
    assert.equal(buckets(policy('user-list:10'), 'user-list').length, 3);
  });

  it('bound key length whatever the input', () => {
    const huge = 'x'.repeat(10_000);
    const list = buckets(DEFAULT_RATE_POLICY, 'user-sendemail-forgotpass', huge, {
      email: `${huge}@example.org`,
      user_id: huge,
    });
    for (const b of list) assert.ok(b.key.length <= 64, b.key);
    assert.ok(backoffKey(huge).length <= 64);
    assert.equal(backoffKey('A@example.org'), backoffKey('a@example.org'));
  });
});

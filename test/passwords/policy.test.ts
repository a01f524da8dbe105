import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkPassword, DEFAULT_PASS_POLICY } from '../../src/accounts/password-policy.js';
import { createPwnedChecker, noPwnedCheck } from '../../src/accounts/pwned.js';
import { FrozenClock } from '../helpers/clock.js';

const policy = { ...DEFAULT_PASS_POLICY, maxUnsafeSimilarity: 50 };
const context = { email: 'jane.doe@example.org', fullName: 'Jane Doe' };
const deps = { serverName: 'auth.example.org', pwned: noPwnedCheck, pwnedFailClosed: false };
const MESSAGES = {
  short: 'Your password is too short. It must have at least 12 characters.',
  common: 'Your password is on the list of the most common passwords and is vulnerable to guessing.',
  similar: 'Your password is too similar to either the domain name of this server or your own name or email address.',
  frequent: 'Your password is not complex enough. One or more characters appear appear too frequently.',
  digits: 'Your password cannot be all numbers.',
};

describe('password policy checks', () => {
  it('accepts a long, uncommon, dissimilar password', async () => {
    assert.deepEqual(await checkPassword('plinth-orchard-vapour-42', context, policy, deps), {
      ok: true,
      messages: [],
    });
  });

  it('refuses each broken rule with its message', async () => {
    const cases: Array<[string, string[]]> = [
      ['tiny-Pw1!', [MESSAGES.short]],
      ['  \t\n sho  \u0000 rt  ', [MESSAGES.short, MESSAGES.frequent]],
      ['1qaz2wsx3edc', [MESSAGES.common]],
      ['QWERTY123456', [MESSAGES.common]],
      ['jane.doe@example.org!', [MESSAGES.similar]],
      ['auth.example.org1', [MESSAGES.similar]],
      ['aaaaaaaaaaaabbbbc', [MESSAGES.frequent]],
      ['48213597604812', [MESSAGES.digits]],
    ];
    for (const [password, expected] of cases) {
      assert.deepEqual(
        await checkPassword(password, context, policy, deps),
        { ok: false, messages: expected },
        password,
      );
    }
  });

  it('lists every broken rule, in the reference order', async () => {
    const verdict = await checkPassword('11111111', context, policy, deps);
    assert.deepEqual(verdict.messages, [MESSAGES.short, MESSAGES.common, MESSAGES.frequent, MESSAGES.digits]);
  });

  it('compares case-insensitively with the name and email', async () => {
    assert.deepEqual((await checkPassword('JANE DOE JANE', context, policy, deps)).messages, [MESSAGES.similar]);
  });

  it('refuses passwords over 1024 characters instead of truncating them', async () => {
    const verdict = await checkPassword('x7#Lq'.repeat(205), context, policy, deps);
    assert.deepEqual(verdict.messages, ['Your password is too long. It must have at most 1024 characters.']);
  });

  it('uses the thresholds it is given', async () => {
    assert.equal((await checkPassword('tiny-Pw1!', context, { ...policy, minPassLength: 8 }, deps)).ok, true);
    assert.equal((await checkPassword('aaaabbcd-xyz', context, { ...policy, maxCharFrequency: 0.2 }, deps)).ok, false);
  });
});

describe('compromised-password check', () => {
  let server: Server;
  let url = '';
  let requests: Array<{ path: string; padding: string | undefined }> = [];
  let mode: 'ok' | 'slow' | 'error' = 'ok';
  const sha1 = (p: string) => createHash('sha1').update(p).digest('hex').toUpperCase();
  const pwned = { 'hunter2-but-longer': 3_000_000, 'rarely-seen-secret': 7 } as Record<string, number>;

  before(async () => {
    server = createServer((req, res) => {
      requests.push({ path: req.url ?? '', padding: req.headers['add-padding'] as string | undefined });
      if (mode === 'slow') return void setTimeout(() => res.end(''), 3000).unref();
      if (mode === 'error') return void res.writeHead(503).end();
      const prefix = (req.url ?? '').slice(-5);
      const lines = Object.entries(pwned)
        .map(([p, n]) => [sha1(p), n] as const)
        .filter(([h]) => h.startsWith(prefix))
        .map(([h, n]) => `${h.slice(5)}:${n}`);
      res.end([...lines, '0000000000000000000000000000000000A:0'].join('\r\n'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  // A generous timeout where the local API answers at once (a loaded machine can take longer than
  // 300 ms to serve it); the short one only where the API is slow on purpose.
  const patient = () => createPwnedChecker({ url, clock: new FrozenClock(), timeoutMs: 10_000 });
  const impatient = () => createPwnedChecker({ url, clock: new FrozenClock(), timeoutMs: 300 });
  const check = (password: string, failClosed: boolean, checker = patient()) =>
    checkPassword(password, context, policy, { ...deps, pwned: checker, pwnedFailClosed: failClosed });

  it('refuses a password seen at least min_pwned_matches times; sends only the hash prefix, with padding', async () => {
    mode = 'ok';
    requests = [];
    const verdict = await check('hunter2-but-longer', false);
    assert.deepEqual(verdict.messages, [
      'Your password was found with 3000000 matches in the database of recently compromised Web account passwords from https://haveibeenpwned.com/Passwords and is not secure.',
    ]);
    assert.deepEqual(requests, [{ path: `/range/${sha1('hunter2-but-longer').slice(0, 5)}`, padding: 'true' }]);
  });

  it('accepts passwords seen fewer times, or not at all', async () => {
    mode = 'ok';
    assert.equal((await check('rarely-seen-secret', false)).ok, true);
    assert.equal((await check('plinth-orchard-vapour-42', false)).ok, true);
  });

  it('accepts when the API is slow or down (fail-open), refuses when configured fail-closed', async () => {
    for (const m of ['slow', 'error'] as const) {
      mode = m;
      assert.equal((await check('plinth-orchard-vapour-42', false, impatient())).ok, true, m);
      const closed = await check('plinth-orchard-vapour-42', true, impatient());
      assert.equal(closed.ok, false, m);
      assert.match(closed.messages[0] ?? '', /could not be checked/);
    }
    const down = createPwnedChecker({ url: 'http://127.0.0.1:1/range/', clock: new FrozenClock(), timeoutMs: 300 });
    assert.equal((await check('plinth-orchard-vapour-42', false, down)).ok, true);
  });

  it('skips the call for a while after repeated failures (breaker), then tries again', async () => {
    mode = 'error';
    requests = [];
    const clock = new FrozenClock(1_000_000);
    const checker = createPwnedChecker({ url, clock, timeoutMs: 10_000, failuresToOpen: 3, openForMs: 60_000 });
    for (let i = 0; i < 5; i++) assert.equal(await checker.count('x'), null);
    assert.equal(requests.length, 3, 'two calls were skipped');
    clock.advance(60_000);
    mode = 'ok';
    assert.equal(await checker.count('hunter2-but-longer'), 3_000_000);
    assert.equal(requests.length, 4);
  });
});

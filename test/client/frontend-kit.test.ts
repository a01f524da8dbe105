/**
 * The frontend kit of the client (docs/frontend.md): the session cookie, CSRF tokens tied to the session, and the
 * codes a frontend mails and checks: made by this frontend, for this purpose, not expired, good once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import {
  csrfToken,
  csrfValid,
  makeMailCode,
  memoryUsedCodes,
  readMailCode,
  redeemMailCode,
  sessionCookie,
  sessionCookieName,
  sessionTokenFrom,
} from '../../src/client/index.js';
import type { UsedCodes } from '../../src/client/index.js';
import { frontendKit } from '../../src/client/koa.js';
import type { FrontendKit } from '../../src/client/koa.js';
import { PKG_DIR } from '../../src/package-dir.js';

const key = randomBytes(32);
const otherKey = randomBytes(32);
const SESSION = 'dGhlIHNlc3Npb24gdG9rZW4gb2YgYSB2aXNpdG9y';
const NOW = Date.parse('2026-01-01T00:00:00Z');
const LATER = NOW + 15 * 60_000;

describe('CSRF tokens', () => {
  it('accept the session’s own token and refuse another session’s, another key’s, an altered or a missing one', () => {
    const token = csrfToken(key, SESSION);
    assert.equal(csrfValid(key, SESSION, token), true);
    assert.equal(csrfValid(key, `${SESSION}x`, token), false);
    assert.equal(csrfValid(otherKey, SESSION, token), false);
    assert.equal(csrfValid(key, SESSION, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`), false);
    assert.equal(csrfValid(key, SESSION, undefined), false);
    assert.equal(csrfValid(key, SESSION, ''), false);
    assert.equal(csrfValid(key, '', csrfToken(key, '')), false, 'no session, no valid token');
  });

  it('compare in constant time whatever the length presented (timingSafeEqual alone throws on unequal lengths)', () => {
    for (const presented of ['a', csrfToken(key, SESSION).repeat(3), 'é'])
      assert.equal(csrfValid(key, SESSION, presented), false);
  });

  it('refuse a key shorter than 32 bytes', () => {
    assert.throws(() => csrfToken(randomBytes(16), SESSION), /at least 32 bytes/);
  });
});

describe('the session cookie', () => {
  it('is __Host-session, HttpOnly, Secure, SameSite=Lax and Path=/ over HTTPS', () => {
    assert.equal(sessionCookieName({ secure: true }), '__Host-session');
    assert.equal(
      sessionCookie(SESSION, { secure: true }),
      `__Host-session=${SESSION}; Path=/; HttpOnly; SameSite=Lax; Secure`,
    );
  });

  it('is `session` without Secure over plain HTTP (development), and is removed with Max-Age=0', () => {
    assert.equal(sessionCookie(SESSION, { secure: false }), `session=${SESSION}; Path=/; HttpOnly; SameSite=Lax`);
    assert.equal(
      sessionCookie(null, { secure: true }),
      '__Host-session=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0',
    );
  });

  it('refuses a token that would break the header', () => {
    assert.throws(() => sessionCookie('a; Domain=evil.example', { secure: true }), /base64url/);
    assert.throws(() => sessionCookie('', { secure: true }), /base64url/);
  });

  it('is read from the Cookie header by its name only', () => {
    const header = `theme=dark; session=plain; __Host-session=${SESSION}`;
    assert.equal(sessionTokenFrom(header, { secure: true }), SESSION);
    assert.equal(sessionTokenFrom(header, { secure: false }), 'plain');
    assert.equal(sessionTokenFrom('theme=dark', { secure: true }), undefined);
    assert.equal(sessionTokenFrom(undefined, { secure: true }), undefined);
    assert.equal(sessionTokenFrom('session=a"b', { secure: false }), undefined);
  });
});

describe('mailed codes', () => {
  const verify = (code: string, nowMs = NOW) => readMailCode(key, code, { purpose: 'verify-email', nowMs });
  const made = () => makeMailCode(key, { purpose: 'verify-email', email: '  Ada@Example.ORG ', expiresAtMs: LATER });

  it('say the address (as authsvc stores it) and the expiry, until they expire', () => {
    const code = made();
    const read = verify(code);
    assert.ok(read.ok);
    assert.equal(read.email, 'ada@example.org');
    assert.equal(read.expiresAtMs, LATER);
    assert.match(code, /^[\w-]+\.[\w-]+$/, 'one word, fit for a URL');
    assert.notEqual(made(), code, 'each code is new');
  });

  it('are refused once expired', () => {
    assert.deepEqual(verify(made(), LATER), { ok: false, reason: 'expired' });
    assert.equal(verify(made(), LATER - 1).ok, true);
  });

  it('are refused for another purpose', () => {
    const reset = makeMailCode(key, { purpose: 'reset-password', email: 'ada@example.org', expiresAtMs: LATER });
    assert.deepEqual(verify(reset), { ok: false, reason: 'wrong-purpose' });
  });

  it('are refused when altered, made with another key, or not codes at all', () => {
    const code = made();
    const [payload = '', signature = ''] = code.split('.');
    // The payload re-written to another purpose, address or expiry keeps the old signature: refused.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    for (const change of [{ p: 'reset-password' }, { e: 'eve@example.org' }, { x: LATER + 86_400_000 }]) {
      const forged = Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url');
      assert.deepEqual(verify(`${forged}.${signature}`), { ok: false, reason: 'tampered' });
    }
    assert.deepEqual(verify(`${payload}.${signature.slice(1)}`), { ok: false, reason: 'tampered' });
    const foreign = makeMailCode(otherKey, { purpose: 'verify-email', email: 'ada@example.org', expiresAtMs: LATER });
    assert.deepEqual(verify(foreign), { ok: false, reason: 'tampered' });
    for (const junk of ['', 'abc', `${code}.x`, `.${signature}`])
      assert.deepEqual(verify(junk), { ok: false, reason: 'malformed' }, junk);
  });

  it('are good once: redeemed, the same code is refused, another code for the address is not', async () => {
    const used = memoryUsedCodes(() => NOW);
    const options = { purpose: 'verify-email', nowMs: NOW, used };
    const code = made();
    assert.equal((await redeemMailCode(key, code, options)).ok, true);
    assert.deepEqual(await redeemMailCode(key, code, options), { ok: false, reason: 'used' });
    assert.equal((await redeemMailCode(key, made(), options)).ok, true);
    // A refused code is not recorded: redeeming a tampered one does not use up the real one.
    const fresh = made();
    assert.equal((await redeemMailCode(key, `${fresh}x`, options)).ok, false);
    assert.equal((await redeemMailCode(key, fresh, options)).ok, true);
  });

  it('are good once even when presented twice at the same moment', async () => {
    const used = memoryUsedCodes(() => NOW);
    const code = made();
    const both = await Promise.all(
      [1, 2].map(() => redeemMailCode(key, code, { purpose: 'verify-email', nowMs: NOW, used })),
    );
    assert.deepEqual(both.map((r) => r.ok).sort(), [false, true]);
  });

  it('work with an asynchronous store, which keeps an id only until its code expires', async () => {
    const kept = new Map<string, number>();
    const store: UsedCodes = {
      use: async (id, until) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (kept.has(id)) return false;
        kept.set(id, until);
        return true;
      },
    };
    const code = made();
    assert.equal((await redeemMailCode(key, code, { purpose: 'verify-email', nowMs: NOW, used: store })).ok, true);
    assert.deepEqual([...kept.values()], [LATER]);
    let clock = NOW;
    const memory = memoryUsedCodes(() => clock);
    assert.equal(memory.use('a', LATER), true);
    assert.equal(memory.use('a', LATER), false);
    clock = LATER;
    assert.equal(memory.use('b', LATER + 1), true, 'dropping the expired id');
    assert.equal(memory.use('a', LATER + 1), true, 'the expired id was forgotten');
  });
});

describe('@authsvc/client/koa', () => {
  it('is a subpath of the package, built by its pack, and of the whole package as authsvc/client/koa', () => {
    const read = (path: string): unknown => JSON.parse(readFileSync(join(PKG_DIR, path), 'utf8'));
    const client = read('src/client/package.json') as { exports: Record<string, { default: string }> };
    assert.equal(client.exports['./koa']?.default, './dist/client/koa.js');
    const pack = read('src/client/tsconfig.pack.json') as { files: string[] };
    assert.ok(pack.files.includes('koa.ts'));
    const whole = read('package.json') as { exports: Record<string, { default: string }> };
    assert.equal(whole.exports['./client/koa']?.default, './dist/client/koa.js');
  });
});

describe('the Koa middleware', () => {
  let server: ReturnType<Koa['listen']>;
  let base: string;
  let seen: { token: string | undefined; form: Record<string, string> } | null = null;

  before(async () => {
    const app = new Koa<{ kit: FrontendKit }>();
    app.use(frontendKit({ key, secure: true, maxFormBytes: 1024 }));
    app.use((ctx) => {
      const kit = ctx.state.kit;
      seen = { token: kit.sessionToken, form: { ...kit.form } };
      if (ctx.path === '/login') kit.setSession(SESSION);
      if (ctx.path === '/logout') kit.setSession(null);
      ctx.body = kit.csrf();
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cookie = `__Host-session=${SESSION}`;
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
      body,
    });

  it('gives the routes the session token, its CSRF token, and sets the cookie they choose', async () => {
    const page = await fetch(`${base}/`, { headers: { cookie } });
    assert.equal(await page.text(), csrfToken(key, SESSION));
    assert.equal(seen?.token, SESSION);
    const anonymous = await fetch(`${base}/`);
    assert.equal(await anonymous.text(), '', 'no session, no CSRF token');
    const login = await fetch(`${base}/login`);
    assert.equal(login.headers.get('set-cookie'), `__Host-session=${SESSION}; Path=/; HttpOnly; SameSite=Lax; Secure`);
    assert.equal(await login.text(), csrfToken(key, SESSION), 'the new session’s token at once');
  });

  it('passes a POST carrying the session’s CSRF token, with its form read', async () => {
    const reply = await post('/logout', new URLSearchParams({ _csrf: csrfToken(key, SESSION), a: 'é b' }).toString());
    assert.equal(reply.status, 200);
    assert.deepEqual(seen?.form, { _csrf: csrfToken(key, SESSION), a: 'é b' });
    assert.match(reply.headers.get('set-cookie') ?? '', /^__Host-session=; .*Max-Age=0$/);
  });

  it('refuses (403) a POST without the token, with another session’s, or without a session', async () => {
    seen = null;
    assert.equal((await post('/', 'a=1')).status, 403);
    assert.equal((await post('/', `_csrf=${csrfToken(key, 'another')}`)).status, 403);
    assert.equal((await post('/', `_csrf=${csrfToken(key, SESSION)}`, { cookie: '' })).status, 403);
    assert.equal(seen, null, 'no route ran');
  });

  it('takes the token from X-CSRF-Token for a script’s request, leaving its body unread', async () => {
    const reply = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrfToken(key, SESSION) },
      body: '{"a":1}',
    });
    assert.equal(reply.status, 200);
    const refused = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: '{"a":1}',
    });
    assert.equal(refused.status, 403);
  });

  it('refuses (413) a form larger than its limit', async () => {
    assert.equal((await post('/', `_csrf=${csrfToken(key, SESSION)}&a=${'x'.repeat(2000)}`)).status, 413);
  });
});

/**
 * docs/frontend.md's code, run: its blocks (the flow, the Koa adapter, the `(req, res, next)` adapter and its Express
 * app) are written to files as they stand, type-checked strictly, and run against authsvc and an SMTP sink, once with
 * Koa and once with Express. A browser's part is played with fetch and
 * a cookie jar: sign-up, the mailed link, verification, login, logout, the reset link, a reset refused then done,
 * each link refused the second time, and a POST without its CSRF token refused.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createClient } from '../../src/client/index.js';
import type { AuthsvcClient } from '../../src/client/index.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { blocksOf, markerOf } from '../helpers/doc-blocks.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startSink } from '../mail/smtp-sink.js';
import type { SmtpSink } from '../mail/smtp-sink.js';
import { strictCheck } from '../helpers/strict-check.js';

const THIS_TEST = 'test/client/frontend-doc.test.ts';
const CLIENT = join(PKG_DIR, 'src', 'client');

/** The blocks this test runs, by the file name on their first line (`// flow.ts`). */
function docFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const block of blocksOf('docs/frontend.md')) {
    if (markerOf(block, 'checked-by')?.path !== THIS_TEST) continue;
    const name = /^\/\/ ([\w-]+\.ts)\n/.exec(block.code)?.[1];
    assert.ok(name !== undefined, `docs/frontend.md:${block.line}: the block's first line names its file`);
    files.set(name, block.code);
  }
  return files;
}

// What the blocks export, as this test uses it.
interface FlowModule {
  createFlow(authsvc: AuthsvcClient, key: Uint8Array, baseUrl: string): unknown;
}
interface KoaModule {
  koaApp(flow: unknown, key: Uint8Array, secure: boolean): { callback(): RequestListener };
}
interface ExpressModule {
  expressApp(authsvc: AuthsvcClient, key: Uint8Array, baseUrl: string, secure: boolean): RequestListener;
}

const PASSWORDS = ['Lamplight-harbour-1851', 'Northern-lights-over-1903'];

/** A browser, as far as these pages need one: a cookie jar, the last page's CSRF token, redirects not followed. */
function visitor(base: string) {
  let cookie = '';
  let csrf = '';
  const remember = async (reply: Response): Promise<{ status: number; html: string; location: string | null }> => {
    for (const set of reply.headers.getSetCookie()) {
      const pair = set.split(';')[0] ?? '';
      cookie = /Max-Age=0/i.test(set) ? '' : pair;
    }
    const html = await reply.text();
    csrf = /name="_csrf" value="([^"]*)"/.exec(html)?.[1] ?? csrf;
    return { status: reply.status, html, location: reply.headers.get('location') };
  };
  return {
    get: async (path: string) =>
      remember(await fetch(new URL(path, base), { headers: { cookie }, redirect: 'manual' })),
    post: async (path: string, form: Record<string, string>, withCsrf = true) =>
      remember(
        await fetch(new URL(path, base), {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(withCsrf ? { _csrf: csrf, ...form } : form),
          redirect: 'manual',
        }),
      ),
  };
}

describe('docs/frontend.md, run', () => {
  let server: TestServer;
  let sink: SmtpSink;
  let work: string;
  let modules: { flow: FlowModule; koa: KoaModule; express: ExpressModule };
  const listening: Server[] = [];

  before(async () => {
    sink = await startSink();
    server = await startTestServer({
      config: {
        email: {
          server: '127.0.0.1',
          port: sink.port,
          user: '',
          pass: '',
          sender: 'a@b.example',
          tlsCa: null,
          timeouts: {},
        },
      },
    });
    // Inside the checkout, so that `koa` resolves from its node_modules; the client is this checkout's source.
    mkdirSync(join(PKG_DIR, '.test-output'), { recursive: true });
    work = mkdtempSync(join(PKG_DIR, '.test-output', 'frontend-doc-'));
    const files = docFiles();
    assert.deepEqual([...files.keys()].sort(), ['express-app.ts', 'express-server.ts', 'flow.ts', 'koa-app.ts']);
    for (const [name, code] of files) {
      const local = code
        .replaceAll("'@authsvc/client/koa'", `'${join(CLIENT, 'koa.js')}'`)
        .replaceAll("'@authsvc/client'", `'${join(CLIENT, 'index.js')}'`);
      writeFileSync(join(work, name), local);
    }
    writeFileSync(join(work, 'package.json'), '{ "type": "module" }\n');
    const load = (name: string): Promise<unknown> => import(pathToFileURL(join(work, name)).href);
    modules = {
      flow: (await load('flow.ts')) as FlowModule,
      koa: (await load('koa-app.ts')) as KoaModule,
      express: (await load('express-server.ts')) as ExpressModule,
    };
  });
  after(async () => {
    await Promise.all(listening.map((s) => new Promise((resolve) => s.close(resolve))));
    await server.close();
    await sink.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('type-checks strictly, as it stands', () => {
    const compiled = strictCheck(work, ['flow.ts', 'koa-app.ts', 'express-app.ts', 'express-server.ts']);
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
  });

  /** Listens with `listener`, made once the base URL is known (the mails' links need it). */
  async function serve(make: (baseUrl: string) => RequestListener): Promise<string> {
    let handler: RequestListener | null = null;
    const http = createServer((req, res) => handler?.(req, res));
    listening.push(http);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    handler = make(base);
    return base;
  }

  /** The link of the newest mail to `to` whose subject holds `subject`, once it has come. */
  async function mailedLink(to: string, subject: string, after: number): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const mail = sink.received
        .slice(after)
        .find((m) => m.envelopeTo.includes(to) && m.parsed.subject?.includes(subject));
      const link = /form at:\s+(\S+)/.exec(mail?.parsed.text ?? '')?.[1];
      if (link !== undefined) return link;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no mail "${subject}" for ${to}`);
  }

  async function signUpVerifyLogInAndReset(base: string, email: string): Promise<void> {
    // The client stamps its requests with the real time; the server's frozen clock is brought to it.
    server.clock.set(Date.now());
    const browser = visitor(base);
    assert.match((await browser.get('/')).html, /id="anonymous"/);

    // A POST without the session's CSRF token is refused before any route runs.
    assert.equal((await browser.post('/signup', { email, password: PASSWORDS[0]! }, false)).status, 403);

    await browser.get('/signup');
    const weak = await browser.post('/signup', { email, password: 'short' });
    assert.match(weak.html, /class="error"/);
    assert.match(weak.html, new RegExp(`name="email" type="email" autocomplete="email" value="${email}"`), 'kept');
    assert.match(weak.html, /name="password" type="password" autocomplete="new-password" value=""/);
    let mails = sink.received.length;
    assert.match((await browser.post('/signup', { email, password: PASSWORDS[0]! })).html, /id="check-mail"/);

    // The mail's link opens a page with one button; the link is good once.
    const verifyLink = await mailedLink(email, 'verify your account', mails);
    assert.ok(verifyLink.startsWith(`${base}/verify?code=`), verifyLink);
    const code = new URL(verifyLink).searchParams.get('code') ?? '';
    await browser.get(verifyLink);
    assert.match((await browser.post('/verify', { code })).html, /id="verified"/);
    assert.match((await browser.post('/verify', { code })).html, /That link does not work \(used\)/);

    await browser.get('/login');
    const wrong = await browser.post('/login', { email, password: PASSWORDS[1]! });
    assert.match(wrong.html, /class="error"/);
    assert.match(wrong.html, /autocomplete="current-password"/);
    const login = await browser.post('/login', { email, password: PASSWORDS[0]! });
    assert.equal(login.location, '/');
    assert.match((await browser.get('/')).html, new RegExp(`Logged in as ${email}`));
    const logout = await browser.post('/logout', {});
    assert.equal(logout.location, '/');
    assert.match((await browser.get('/')).html, /id="anonymous"/);

    await browser.get('/forgot');
    mails = sink.received.length;
    assert.match((await browser.post('/forgot', { email })).html, /id="check-mail"/);
    const resetLink = await mailedLink(email, 'password reset', mails);
    const resetCode = new URL(resetLink).searchParams.get('code') ?? '';
    assert.match((await browser.get(resetLink)).html, /autocomplete="new-password"/);
    // Refused by authsvc (too short): the form comes back with a new code, as the mailed one is used up.
    const refused = await browser.post('/reset', { code: resetCode, new_password: 'short' });
    assert.match(refused.html, /class="error"/);
    const again = /name="code" value="([^"]+)"/.exec(refused.html)?.[1] ?? '';
    assert.notEqual(again, resetCode);
    assert.match((await browser.post('/reset', { code: again, new_password: PASSWORDS[1]! })).html, /id="reset"/);
    assert.match((await browser.post('/reset', { code: resetCode, new_password: PASSWORDS[0]! })).html, /\(used\)/);
    assert.match((await browser.get(resetLink)).html, /id="reset-form"|name="code"/, 'the link still shows its form');

    await browser.get('/login');
    assert.equal((await browser.post('/login', { email, password: PASSWORDS[1]! })).location, '/');
  }

  it('runs the whole flow with Koa', async () => {
    const key = randomBytes(32);
    const authsvc = createClient({ url: server.url, secret: server.secret });
    try {
      const base = await serve((baseUrl) =>
        modules.koa.koaApp(modules.flow.createFlow(authsvc, key, baseUrl), key, false).callback(),
      );
      await signUpVerifyLogInAndReset(base, 'koa-user@example.org');
    } finally {
      authsvc.close();
    }
  });

  it('runs the whole flow with Express', async () => {
    const key = randomBytes(32);
    const authsvc = createClient({ url: server.url, secret: server.secret });
    try {
      const base = await serve((baseUrl) => modules.express.expressApp(authsvc, key, baseUrl, false));
      await signUpVerifyLogInAndReset(base, 'express-user@example.org');
    } finally {
      authsvc.close();
    }
  });
});

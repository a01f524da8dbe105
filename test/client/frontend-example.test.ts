/**
 * examples/frontend, driven in a real browser: authsvc and the example run as processes of their own,
 * and headless Chromium (Debian's, through puppeteer-core; never a downloaded browser) signs up, reads
 * the verification mail from the example's mail sink, verifies, logs in, sees a page that depends on
 * user-check-access, issues, verifies and refreshes an API key, changes and resets the password,
 * adds an authenticator app and logs in with a code and with a recovery code, confirms with a code before a
 * password change, and logs out. A second user adds a passkey (Chromium's virtual authenticator, through the
 * DevTools protocol), logs in with the password and the passkey, confirms a password change with it, and signs in
 * with the passkey alone. The browser reaches the example at http://localhost:<port>, the origin authsvc is given
 * for passkeys (WebAuthn needs a secure context and a domain for its relying party id, not 127.0.0.1).
 * Screenshots of the main pages go to the git-ignored `.test-output/frontend/`, and the two its README shows to
 * examples/frontend/.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import puppeteer from 'puppeteer-core';
import type { Browser, ElementHandle, Page } from 'puppeteer-core';
import { totpCodeAt } from '../../src/accounts/second-factor.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { startAuthsvc } from '../cli/spawn.js';
import type { Started } from '../cli/spawn.js';
import { selfSignedCertificate } from '../mail/smtp-sink.js';
import { childEnv } from '../helpers/child-env.js';

const CHROMIUM = '/usr/bin/chromium';
const IN_CI = process.env['CI'] === 'true';
const SHOTS = join(PKG_DIR, '.test-output', 'frontend');
// Outside CI a machine without Chromium skips with one line; in CI the test runs and fails on its absence.
const skip =
  !IN_CI && !existsSync(CHROMIUM)
    ? `${CHROMIUM} is absent (apt-get install chromium), the browser test did not run`
    : false;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * authsvc as a process of its own, on a fresh SQLite database in `work`, mailing through `smtpPort`; with
 * `passkeyOrigin`, passkeys on for that origin of the frontend (relying party id localhost).
 */
function startServer(work: string, secret: string, smtpPort: number, passkeyOrigin?: string): Promise<Started> {
  return startAuthsvc(['--port=0'], {
    cwd: work,
    env: {
      AUTHSVC_SECRET: secret,
      AUTHSVC_PIISALT: 'frontend-example-salt',
      AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
      AUTHSVC_BASEDIR: work,
      AUTHSVC_WORKERS: '1',
      AUTHSVC_EMAILSERVER: '127.0.0.1',
      AUTHSVC_EMAILPORT: String(smtpPort),
      // No internet here: the compromised-password lookup would only wait for its timeout.
      AUTHSVC_PWNEDURL: 'none',
      // Every browser of these tests comes from 127.0.0.1, and they sign up and log in three people within a minute:
      // more than the per-address limits of one person's sign-up mails and logins.
      AUTHSVC_RATELIMITS: 'user-sendemail-signup:10;user-login:30',
      ...(passkeyOrigin === undefined
        ? {}
        : { AUTHSVC_PASSKEYORIGINS: passkeyOrigin, AUTHSVC_PASSKEYRPID: 'localhost' }),
    },
  });
}

interface Example {
  readonly child: ChildProcess;
  readonly url: string;
  readonly sinkUrl: string;
  readonly output: () => string;
}

/** Runs `npx tsx examples/frontend/main.ts` as its README says, and waits for both of its URLs. */
function startExample(env: Record<string, string>): Promise<Example> {
  const child = spawn(process.execPath, ['--import', 'tsx', join('examples', 'frontend', 'main.ts')], {
    cwd: PKG_DIR,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const url = /example frontend: (\S+)/.exec(output)?.[1];
      const sinkUrl = /mails shown at (\S+)/.exec(output)?.[1];
      if (url !== undefined && (sinkUrl !== undefined || env['FRONTEND_MAIL_SINK'] === 'off')) {
        clearTimeout(timer);
        resolve({ child, url, sinkUrl: sinkUrl ?? '', output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the example exited with ${String(code)}:\n${output}`));
    });
  });
}

interface SinkMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Waits for a mail to `to` whose subject contains `subject`, and returns its code and its link (the code inside). */
async function mailed(sinkUrl: string, to: string, subject: string): Promise<{ code: string; link: string }> {
  for (let i = 0; i < 100; i++) {
    const mails = (await (await fetch(new URL('mails.json', sinkUrl))).json()) as SinkMail[];
    const mail = mails.find((m) => m.to === to && m.subject.includes(subject));
    if (mail !== undefined) {
      const code = /Please enter this code:\s+(\S+)/.exec(mail.text)?.[1];
      const link = /form at:\s+(\S+)/.exec(mail.text)?.[1];
      assert.ok(code !== undefined && link !== undefined, mail.text);
      assert.equal(new URL(link).searchParams.get('code'), code, 'the link carries the code');
      return { code, link };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no mail "${subject}" for ${to}`);
}

/** The last lines a process wrote (stdout and stderr together): enough to see why a page failed, short enough to read. */
const tail = (label: string, output: string | undefined, lines = 60): string =>
  `--- ${label}, its last ${lines} lines ---\n${(output ?? '(not started)').trimEnd().split('\n').slice(-lines).join('\n')}`;

/**
 * A test's steps; when one fails, the failure carries what the example frontend and authsvc wrote. The example answers
 * 503 when its client throws (authsvc unreachable, too slow, refusing with 429…) and says why on its stderr only.
 */
function showingLogs(
  processes: () => readonly (readonly [string, { output: () => string } | undefined])[],
  steps: () => Promise<void>,
): () => Promise<void> {
  return async () => {
    try {
      await steps();
    } catch (error) {
      const logs = processes().map(([label, p]) => tail(label, p?.output()));
      throw new Error([error instanceof Error ? (error.stack ?? error.message) : String(error), ...logs].join('\n'), {
        cause: error,
      });
    }
  };
}

/** What the tests do with a page of the example at `base`. */
function browse(page: Page, base: string) {
  const shot = (name: string): Promise<unknown> =>
    page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  /** The screenshots its README shows, at one size (the same page gives the same picture, so git sees no change). */
  const readmeShot = async (name: string): Promise<void> => {
    await page.setViewport({ width: 1000, height: 640 });
    await page.screenshot({ path: join(PKG_DIR, 'examples', 'frontend', `${name}.png`), fullPage: true });
  };
  const open = async (path: string): Promise<void> => {
    const response = await page.goto(new URL(path, base).href);
    assert.equal(response?.status(), 200, path);
  };
  const submit = async (formId: string, values: Record<string, string>): Promise<number | undefined> => {
    // Typed over what a field holds (a form shown again after an error keeps what was typed).
    for (const [name, value] of Object.entries(values)) {
      const selector = `#${formId} [name="${name}"]`;
      await page.$eval(selector, (input) => ((input as unknown as { value: string }).value = ''));
      await page.type(selector, value);
    }
    const [response] = await Promise.all([page.waitForNavigation(), page.click(`#${formId} button[type="submit"]`)]);
    return response?.status();
  };
  // Read through element handles: this program has no DOM types (tsconfig has no "dom" lib).
  const propertyOf = async (handle: ElementHandle, name: string): Promise<string> => {
    const value: unknown = await (await handle.getProperty(name)).jsonValue();
    return String(value);
  };
  const property = async (selector: string, name: string): Promise<string> => {
    const handle = await page.$(selector);
    assert.ok(handle !== null, selector);
    return propertyOf(handle, name);
  };
  const text = (selector: string): Promise<string> => property(selector, 'textContent');
  const logOut = (): Promise<unknown> => Promise.all([page.waitForNavigation(), page.click('#logout')]);
  return { shot, readmeShot, open, submit, propertyOf, property, text, logOut };
}

describe('examples/frontend in headless Chromium', { skip }, () => {
  let work: string;
  let authsvc: Started | undefined;
  let example: Example | undefined;
  let browser: Browser | undefined;
  const processes = () =>
    [
      ['the example frontend', example],
      ['authsvc', authsvc],
    ] as const;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is required in CI (.ci/run installs Debian's chromium)`);
    work = mkdtempSync(join(tmpdir(), 'authsvc-frontend-'));
    mkdirSync(SHOTS, { recursive: true });
    const secret = generateFernetKey();
    const smtpPort = await freePort();
    // authsvc must know the frontend's origin before the frontend starts (it needs authsvc's URL): a port chosen now.
    const origin = `http://localhost:${await freePort()}`;
    authsvc = await startServer(work, secret, smtpPort, origin);
    example = await startExample({
      AUTHSVC_URL: authsvc.url,
      AUTHSVC_SECRET: secret,
      FRONTEND_PORT: new URL(origin).port,
      FRONTEND_BASEURL: origin,
      SINK_SMTP_PORT: String(smtpPort),
      SINK_HTTP_PORT: '0',
    });
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless=new', '--no-sandbox'],
    });
  });

  after(async () => {
    await browser?.close();
    example?.child.kill('SIGTERM');
    await authsvc?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it(
    'signs up, verifies, logs in, checks access, manages API keys and passwords, and logs out',
    showingLogs(processes, async () => {
      assert.ok(browser !== undefined && example !== undefined);
      const base = example.url;
      const page: Page = await browser.newPage();
      const { shot, readmeShot, open, submit, propertyOf, property, text, logOut } = browse(page, base);
      const email = 'ada@example.org';
      const passwords = ['Analytical-engine-1843!', 'Difference-engine-1822?', 'Bernoulli-numbers-note-G'];

      await open('/');
      assert.match(await text('#welcome'), /not logged in/);
      await shot('home');

      await open('/signup');
      await shot('signup');
      // What the browser's password manager and autofill go by.
      const autocomplete = (form: string, name: string): Promise<string> =>
        property(`#${form} [name="${name}"]`, 'autocomplete');
      assert.deepEqual(
        await Promise.all(['full_name', 'email', 'password'].map((name) => autocomplete('signup-form', name))),
        ['name', 'email', 'new-password'],
      );
      // Refused (too short a password): the form keeps what was typed, never the password.
      await submit('signup-form', { full_name: 'Ada Lovelace', email, password: 'short' });
      assert.notEqual(await text('main .error'), '');
      assert.equal(await property('#signup-form [name="full_name"]', 'value'), 'Ada Lovelace');
      assert.equal(await property('#signup-form [name="email"]', 'value'), email);
      assert.equal(await property('#signup-form [name="password"]', 'value'), '');
      await readmeShot('signup');
      assert.equal(await submit('signup-form', { password: passwords[0]! }), 200);
      assert.match(await text('main'), /Please verify your email address/);

      // One click on the mail's link opens the verification page with the code in its form: one button.
      const verifyMail = await mailed(example.sinkUrl, email, 'verify your account');
      await open(example.sinkUrl);
      await shot('mail-sink');
      await Promise.all([page.waitForNavigation(), page.click(`a[href="${verifyMail.link}"]`)]);
      assert.equal(await text('#verify-email'), email);
      assert.equal(await submit('verify-form', {}), 200);
      assert.match(await text('#verified'), /verified/);
      // The link is good once.
      await open(verifyMail.link);
      await submit('verify-form', {});
      assert.match(await text('main .error'), /used already/);

      await open('/login');
      assert.deepEqual(await Promise.all(['email', 'password'].map((name) => autocomplete('login-form', name))), [
        'email',
        'current-password',
      ]);
      await shot('login');
      await submit('login-form', { email, password: passwords[0]! });
      assert.match(await text('#whoami'), /ada@example\.org \(authenticated\)/);
      const cookie = (await browser.cookies()).find((c) => c.name === 'session');
      assert.ok(cookie !== undefined, 'the session cookie');
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      await shot('logged-in');

      // A form posted without the session's CSRF token (another site's form, a script) is refused.
      const forged = await fetch(new URL('/password', base), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `session=${cookie.value}` },
        body: new URLSearchParams({ current_password: passwords[0]!, new_password: passwords[1]! }),
        redirect: 'manual',
      });
      assert.equal(forged.status, 403);

      await open('/datasets');
      const shown = await Promise.all(
        (await page.$$('#datasets li')).map(
          async (li) => `${await propertyOf(li, 'id')}:${await propertyOf(li, 'className')}`,
        ),
      );
      assert.deepEqual(shown, ['dataset-0:granted', 'dataset-1:denied', 'dataset-2:granted', 'dataset-3:granted']);
      await shot('datasets');
      await readmeShot('datasets');

      await open('/apikeys');
      await submit('new-key-form', {});
      assert.match(await text('#issued'), /generated/);
      const firstKey = await property('#apikey', 'value');
      await shot('apikey-issued');
      await submit('verify-key-form', {});
      assert.equal(await property('#verify-result', 'className'), 'message');
      await submit('refresh-key-form', {});
      assert.match(await text('#refreshed'), /generated/);
      const secondKey = await property('#apikey', 'value');
      assert.notEqual(secondKey, firstKey);
      await submit('verify-key-form', {});
      assert.equal(await property('#verify-result', 'className'), 'message');
      await shot('apikey-refreshed');

      await open('/password');
      await submit('password-form', { current_password: passwords[0]!, new_password: passwords[1]! });
      assert.match(await text('#changed'), /changed/);

      await logOut();
      assert.match(await text('#welcome'), /not logged in/);

      await open('/forgot');
      await submit('forgot-form', { email });
      assert.match(await text('main'), /If that address belongs to an account/);
      const resetMail = await mailed(example.sinkUrl, email, 'password reset');
      await open(resetMail.link);
      assert.equal(await text('#reset-email'), email);
      assert.equal(await autocomplete('reset-form', 'new_password'), 'new-password');
      // Refused by authsvc (too short): the page keeps a code that works, though the mailed one is used up.
      await submit('reset-form', { new_password: 'short' });
      assert.notEqual(await text('main .error'), '');
      await submit('reset-form', { new_password: passwords[2]! });
      assert.match(await text('#reset-done'), /reset/);
      await open(resetMail.link);
      await submit('reset-form', { new_password: 'Another-password-1999' });
      assert.match(await text('main .error'), /used already/, 'the mailed link is good once');

      await open('/login');
      await submit('login-form', { email, password: passwords[1]! });
      assert.match(await text('main .error'), /didn't work/, 'the password before the reset no longer works');
      await submit('login-form', { email, password: passwords[2]! });
      assert.match(await text('#whoami'), /ada@example\.org/);
      await shot('after-reset');

      // Second factors: add an authenticator app (its QR code shown), keep the recovery codes, then log in with a
      // code and with a recovery code, and confirm with a code before changing the password.
      await open('/security');
      assert.match(await text('#no-factors'), /no second factor/);
      await submit('totp-form', { name: 'phone' });
      assert.ok((await page.$('#qr svg')) !== null, 'the QR code is shown');
      const secret = await text('#totp-secret');
      await shot('totp-qr');
      // Codes of three consecutive steps, as an app shows them 30 s apart: each code works once.
      const at = Date.now();
      const [enrolCode, loginCode, stepUpCode] = [at - 30_000, at, at + 30_000].map((t) => totpCodeAt(secret, t));
      await submit('totp-confirm-form', { code: enrolCode! });
      assert.match(await text('#totp-added'), /set up/);
      const recoveryCodes = await Promise.all(
        (await page.$$('#recovery-codes li')).map((li) => propertyOf(li, 'textContent')),
      );
      assert.equal(recoveryCodes.length, 10);
      assert.match(await text('#codes-left'), /10/);
      await shot('recovery-codes');

      await logOut();
      await open('/login');
      await submit('login-form', { email, password: passwords[2]! });
      assert.equal(await page.title(), 'Second step — authsvc example');
      await shot('second-step');
      await submit('code-form', { code: loginCode! });
      assert.match(await text('#whoami'), /ada@example\.org/);

      await open('/password');
      await submit('password-form', { current_password: passwords[2]!, new_password: passwords[0]! });
      assert.match(await text('#stepup-needed'), /fresh confirmation/);
      await shot('step-up');
      await submit('code-form', { code: stepUpCode! });
      assert.match(await text('#stepped-up'), /Thank you/);
      await Promise.all([page.waitForNavigation(), page.click('#continue')]);
      await submit('password-form', { current_password: passwords[2]!, new_password: passwords[0]! });
      assert.match(await text('#changed'), /changed/);

      await logOut();
      await open('/login');
      await submit('login-form', { email, password: passwords[0]! });
      await submit('recovery-form', { code: recoveryCodes[0]!.trim() });
      assert.match(await text('#whoami'), /ada@example\.org/);
      await open('/security');
      assert.match(await text('#codes-left'), /9/);
      await shot('security');

      // Adding a passkey next to the app needs the app proved on this session first: the script goes to the step-up.
      await submit('passkey-register-form', { passkey_name: 'key' });
      assert.match(await text('#stepup-needed'), /fresh confirmation/);
      assert.ok((await page.$('#code-form')) !== null && (await page.$('#passkey-form')) === null);
    }),
  );

  it(
    'adds a passkey, and uses it as the second step, for a step-up and to sign in alone',
    showingLogs(processes, async () => {
      assert.ok(browser !== undefined && example !== undefined);
      const page: Page = await browser.newPage();
      const { shot, open, submit, property, text, logOut } = browse(page, example.url);
      // What the page's CSP refused, and the script's uncaught errors: none expected.
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      page.on('pageerror', (error) => refused.push(String(error)));
      // Chromium's virtual authenticator, through the DevTools protocol: a platform authenticator that keeps
      // discoverable credentials, verifies the user and answers each prompt at once, with no dialog.
      const cdp = await page.createCDPSession();
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      /** Submits a passkey form: passkey.js asks for the options, the authenticator answers, the script posts it. */
      const usePasskey = async (formId: string): Promise<void> => {
        const navigated = page.waitForNavigation({ timeout: 20_000 }).then(
          () => true,
          () => false,
        );
        await page.click(`#${formId} button[type="submit"]`);
        if (!(await navigated)) assert.fail(`no page after the passkey of #${formId}: ${await text('main')}`);
      };
      const email = 'grace@example.org';
      const passwords = ['Flow-matic-compiler-1955', 'Common-business-language-1959'];

      const csp = (await fetch(new URL('/login', example.url))).headers.get('content-security-policy');
      assert.equal(
        csp,
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'",
      );

      // No passkey yet: the browser refuses, and the script says so on the page.
      await open('/login');
      await page.click('#passkey-login-form button[type="submit"]');
      await page.waitForSelector('#passkey-problem', { timeout: 20_000 });
      assert.match(await text('#passkey-problem'), /No passkey was used/);

      await open('/signup');
      await submit('signup-form', { full_name: 'Grace Hopper', email, password: passwords[0]! });
      // The code typed in, as from a mail read on another device.
      await open('/verify');
      assert.equal(await property('#verify-form [name="code"]', 'autocomplete'), 'one-time-code');
      await submit('verify-form', { code: (await mailed(example.sinkUrl, email, 'verify your account')).code });
      assert.match(await text('#verified'), /verified/);
      await open('/login');
      await submit('login-form', { email, password: passwords[0]! });
      assert.match(await text('#whoami'), /grace@example\.org/);

      // The first factor, so no step-up before it; it brings the recovery codes.
      await open('/security');
      await page.type('#passkey-register-form [name="passkey_name"]', 'laptop');
      await usePasskey('passkey-register-form');
      assert.match(await text('#passkey-added'), /set up/);
      assert.match(await text('#factors'), /laptop \(passkey\)/);
      assert.equal((await page.$$('#recovery-codes li')).length, 10);
      const stored = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
      assert.deepEqual(
        stored.map((c) => [c.rpId, c.isResidentCredential]),
        [['localhost', true]],
      );
      await shot('passkey-added');

      await logOut();
      await open('/login');
      await submit('login-form', { email, password: passwords[0]! });
      assert.equal(await page.title(), 'Second step — authsvc example');
      assert.equal(await page.$('#code-form'), null, 'no authenticator app, no field for its code');
      await shot('second-step-passkey');
      await usePasskey('passkey-form');
      assert.match(await text('#whoami'), /grace@example\.org/);

      // A new session: changing the password needs the passkey again.
      await open('/password');
      await submit('password-form', { current_password: passwords[0]!, new_password: passwords[1]! });
      assert.match(await text('#stepup-needed'), /fresh confirmation/);
      await shot('step-up-passkey');
      await usePasskey('passkey-form');
      assert.match(await text('#stepped-up'), /Thank you/);
      await Promise.all([page.waitForNavigation(), page.click('#continue')]);
      await submit('password-form', { current_password: passwords[0]!, new_password: passwords[1]! });
      assert.match(await text('#changed'), /changed/);

      await logOut();
      await open('/login');
      await usePasskey('passkey-login-form');
      assert.match(await text('#whoami'), /grace@example\.org \(authenticated\)/);
      await shot('passkey-login');
      // Each use signed with a grown counter (authsvc refuses one that did not grow).
      const used = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
      assert.ok((used[0]?.signCount ?? 0) >= 3, JSON.stringify(used[0]?.signCount));
      assert.deepEqual(refused, []);
    }),
  );

  it(
    'lists the devices, this one marked, and signs out one other device, then every other',
    showingLogs(processes, async () => {
      assert.ok(browser !== undefined && example !== undefined);
      const email = 'linus@example.org';
      const password = 'Monolithic-kernel-1991!';
      // Three devices: browser contexts of their own, so three cookie jars and three sessions.
      const devices = await Promise.all([1, 2, 3].map(() => browser!.createBrowserContext()));
      const pages = await Promise.all(devices.map((d) => d.newPage()));
      const [here, ...elsewhere] = pages.map((p) => ({ page: p, ...browse(p, example!.url) }));
      assert.ok(here !== undefined);
      await here.open('/signup');
      await here.submit('signup-form', { full_name: 'Linus T', email, password });
      await here.open((await mailed(example.sinkUrl, email, 'verify your account')).link);
      await here.submit('verify-form', {});
      for (const device of [...elsewhere, here]) {
        await device.open('/login');
        await device.submit('login-form', { email, password });
        assert.match(await device.text('#whoami'), /linus@example\.org/);
      }
      const signedIn = async (): Promise<boolean[]> =>
        Promise.all(
          elsewhere.map(async (d) => {
            await d.open('/');
            return (await d.page.$('#whoami')) !== null;
          }),
        );

      await here.open('/security');
      const listed = await here.page.$$('#devices li.device');
      assert.equal(listed.length, 3, 'three devices');
      assert.equal((await here.page.$$('#devices .this-device')).length, 1, 'this one marked');
      await here.shot('devices');
      const firstOther = await here.page.$('#devices form button[type="submit"]');
      assert.ok(firstOther !== null);
      await Promise.all([here.page.waitForNavigation(), firstOther.click()]);
      assert.match(await here.text('main .message'), /signed out/);
      assert.equal((await here.page.$$('#devices li.device')).length, 2);
      assert.deepEqual((await signedIn()).sort(), [false, true], 'one of the other two is signed out');

      await here.submit('revoke-others-form', {});
      assert.match(await here.text('main .message'), /Every other device/);
      assert.equal((await here.page.$$('#devices li.device')).length, 1);
      assert.deepEqual(await signedIn(), [false, false]);
      assert.match(await here.text('#whoami'), /linus@example\.org/, 'this device stays signed in');

      // The recent activity: the three sign-ins, then a failed one from another device, the devices signed out.
      const intruder = elsewhere[0];
      assert.ok(intruder !== undefined);
      await intruder.open('/login');
      await intruder.submit('login-form', { email, password: 'not-the-password' });
      await here.open('/security');
      const events = await Promise.all(
        (await here.page.$$('#history li.event')).map(
          async (li) => /data-event="([^"]*)"/.exec(await here.propertyOf(li, 'outerHTML'))?.[1],
        ),
      );
      assert.deepEqual(
        events.slice(0, 3),
        ['login.failed', 'session.ended', 'session.ended'],
        'newest first: the failed sign-in, then the two sign-outs',
      );
      assert.equal(events.filter((e) => e === 'login.succeeded').length, 3);
      assert.equal(events.at(-1), 'user.signed-up');
      assert.match(
        (await here.text('#history li.event')).replace(/\s+/g, ' ').trim(),
        /^Failed sign-in, \S+ from 127\.0\.0\.1\s+\(Mozilla/,
      );
      await here.shot('history');
      await Promise.all(devices.map((d) => d.close()));
    }),
  );
});

describe('examples/frontend over TLS', () => {
  it('sets the session cookie as __Host-session, Secure, HttpOnly and SameSite=Lax', async () => {
    const work = mkdtempSync(join(tmpdir(), 'authsvc-frontend-tls-'));
    const secret = generateFernetKey();
    const { key, cert } = selfSignedCertificate();
    writeFileSync(join(work, 'key.pem'), key);
    writeFileSync(join(work, 'cert.pem'), cert);
    const server = await startServer(work, secret, await freePort());
    let example: Example | undefined;
    const processes = () =>
      [
        ['the example frontend', example],
        ['authsvc', server],
      ] as const;
    try {
      await showingLogs(processes, async () => {
        example = await startExample({
          AUTHSVC_URL: server.url,
          AUTHSVC_SECRET: secret,
          FRONTEND_PORT: '0',
          FRONTEND_TLS_CERT: join(work, 'cert.pem'),
          FRONTEND_TLS_KEY: join(work, 'key.pem'),
          FRONTEND_MAIL_SINK: 'off',
        });
        assert.match(example.url, /^https:/);
        const url = new URL('/login', example.url);
        const setCookie = await new Promise<string[]>((resolve, reject) => {
          request(url, { ca: cert }, (res) => {
            res.resume();
            resolve(res.headers['set-cookie'] ?? []);
          })
            .on('error', reject)
            .end();
        });
        assert.equal(setCookie.length, 1, setCookie.join('\n'));
        const [pair, ...attributes] = (setCookie[0] ?? '').split(';').map((part) => part.trim().toLowerCase());
        assert.match(pair ?? '', /^__host-session=[^;]+$/);
        assert.deepEqual(attributes.sort(), ['httponly', 'path=/', 'samesite=lax', 'secure']);
      })();
    } finally {
      example?.child.kill('SIGTERM');
      await server.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

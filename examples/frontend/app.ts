/**
 * The example frontend: a Koa app rendering HTML on the server, which keeps no user data of its own.
 * Every account operation is one authsvc action through the typed client; the browser holds only
 * the session token, in an HttpOnly cookie. Its one script, passkey.js, runs the browser's half of the
 * passkey ceremonies.
 */
import { readFileSync } from 'node:fs';
import { Router } from '@koa/router';
import Koa from 'koa';
import type { ActionInput, AuthsvcClient } from 'authsvc/client';
import {
  AuthsvcError,
  failureCodeOf,
  makeMailCode,
  memoryUsedCodes,
  readMailCode,
  redeemMailCode,
} from 'authsvc/client';
import type { MailCodeRefusal, UsedCodes } from 'authsvc/client';
import { frontendKit } from 'authsvc/client/koa';
import type { FrontendKit } from 'authsvc/client/koa';
import { field, form, hidden, html, page, passkeyForm } from './html.js';
import type { Html } from './html.js';

export interface FrontendOptions {
  readonly authsvc: AuthsvcClient;
  /** The frontend's own secret, 32 bytes or more: CSRF tokens and mailed codes (never sent to authsvc). */
  readonly key: Uint8Array;
  /** Where browsers reach this frontend, for the links in mails, e.g. http://127.0.0.1:8080 */
  readonly baseUrl: string;
  /** Served over TLS: the cookie is then `__Host-session` and `Secure`. */
  readonly tls: boolean;
  readonly serverName?: string;
  readonly now?: () => number;
  /** The mailed codes redeemed (each is good once); default this process's memory. */
  readonly usedCodes?: UsedCodes;
}

interface Visitor {
  readonly token: string;
  readonly userId: number;
  readonly role: string;
  readonly email: string;
  readonly fullName: string;
  readonly loggedIn: boolean;
}

interface State {
  kit: FrontendKit;
  visitor: Visitor;
  form: Readonly<Record<string, string>>;
}

type Ctx = Koa.ParameterizedContext<State>;

/** How long the mailed codes stay valid. */
const CODE_SECONDS = 15 * 60;
const ANONYMOUS_ID = 2;
/** The script of the passkey forms, served as /passkey.js (the only script the pages may run). */
const PASSKEY_JS = readFileSync(new URL('passkey.js', import.meta.url), 'utf8');
/** The style sheet, served as /style.css (no other). */
const STYLE_CSS = readFileSync(new URL('style.css', import.meta.url), 'utf8');
/** The files served as they are, without a session. */
const STATIC_PATHS = ['/style.css', '/passkey.js'];
/** The pages a step-up may go back to. */
const STEP_UP_BACKS = ['/password', '/security', '/apikeys'];

/** The end user's address as authsvc expects it: an IPv4-mapped IPv6 address is given as IPv4. */
const clientIpOf = (ctx: Ctx): string => ctx.ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');

/** A JSON object as the actions take one (an API key's dict, a passkey's answer; JSON.parse gives JSON values only). */
type JsonDict = ActionInput<'user-login-passkey'>['response'];
function parseDict(text: string): JsonDict | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonDict) : null;
  } catch {
    return null;
  }
}

/** What a second step or step-up posted: a code, or the browser's answer that passkey.js put into the form. */
type Proof = { method: 'totp' | 'recovery'; code: string } | { method: 'passkey'; response: JsonDict };
function proofOf(f: Record<string, string>): Proof | null {
  if (f['method'] === 'passkey') {
    const response = parseDict(f['response'] ?? '');
    return response === null ? null : { method: 'passkey', response };
  }
  return { method: f['method'] === 'recovery' ? 'recovery' : 'totp', code: f['code'] ?? '' };
}
/** A passkey form posted without the browser's answer (its script did not run). */
const NO_PASSKEY = 'Your browser sent no passkey. Please try again.';

/** What the pages say about a mailed code that was refused. */
const CODE_REFUSED: Readonly<Record<MailCodeRefusal, string>> = {
  malformed: 'That is not a code from our mails. Please copy it whole.',
  tampered: 'That is not a code from our mails. Please copy it whole.',
  'wrong-purpose': 'That code is for something else. Please use the code of this mail.',
  expired: 'That code has expired. Please ask for a new mail.',
  used: 'That code was used already. Please ask for a new mail.',
};

export function createFrontend(options: FrontendOptions): Koa<State> {
  const { authsvc, key } = options;
  const now = options.now ?? Date.now;
  const serverName = options.serverName ?? 'authsvc example frontend';
  const usedCodes = options.usedCodes ?? memoryUsedCodes(now);
  const app = new Koa<State>();
  const router = new Router<State>();

  const call: AuthsvcClient['request'] = (action, body, opts) => authsvc.request(action, body, opts);
  const ipOpts = (ctx: Ctx): { clientIp: string } => ({ clientIp: clientIpOf(ctx) });

  async function newSession(ctx: Ctx, userId: number | null): Promise<string> {
    const reply = await call(
      'session-new',
      {
        ip_address: clientIpOf(ctx),
        user_agent: ctx.get('user-agent').slice(0, 1024) || 'unknown',
        user_id: userId,
        expires: 7,
        extra_info_json: {},
      },
      ipOpts(ctx),
    );
    if (!reply.success) throw new Error(`session-new failed: ${reply.failure_reason}`);
    // The kit's cookie: HttpOnly, SameSite=Lax, and over TLS __Host-session and Secure.
    ctx.state.kit.setSession(reply.response.session_token);
    return reply.response.session_token;
  }

  const render = (ctx: Ctx, title: string, body: Html, status = 200): void => {
    const v = ctx.state.visitor;
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = page(title, v.loggedIn ? { email: v.email, role: v.role } : null, ctx.state.kit.csrf(), body);
  };
  const csrf = (ctx: Ctx): string => ctx.state.kit.csrf();
  const notice = (text: string): Html => html`<p class="message">${text}</p>`;
  const problem = (messages: readonly string[]): Html => html`<p class="error">${messages.join(' ')}</p>`;

  // Security headers on every page: no scripts but our own passkey.js (which fetches only from us), no framing, no
  // referrer leaking a URL.
  app.use(async (ctx, next) => {
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'",
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    try {
      await next();
    } catch (error) {
      if (error instanceof AuthsvcError) {
        // authsvc's own outcomes are replies; an exception is a transport problem worth logging.
        console.error(`authsvc: ${error.kind}: ${error.message}`);
        ctx.status = 503;
        ctx.type = 'text';
        ctx.body = 'The authentication service is unavailable. Please try again later.';
        return;
      }
      throw error;
    }
  });

  router.get('/style.css', (ctx) => {
    ctx.type = 'css';
    ctx.body = STYLE_CSS;
  });
  router.get('/passkey.js', (ctx) => {
    ctx.type = 'js';
    ctx.body = PASSKEY_JS;
  });

  // The kit: the session cookie, the form of a POST, and its CSRF token checked before any action runs.
  app.use(
    frontendKit({
      key,
      secure: options.tls,
      refused: (ctx) => {
        ctx.status = 403;
        ctx.body = page(
          'Form expired',
          null,
          '',
          html`<p class="error">This form has expired. Please go back, reload and try again.</p>`,
        );
      },
    }),
  );

  // The session: every visitor has one (an anonymous one until login), since authsvc's sign-up and
  // password mails need a session and the CSRF tokens are tied to it.
  app.use(async (ctx, next) => {
    if (STATIC_PATHS.includes(ctx.path)) {
      await next();
      return;
    }
    const presented = ctx.state.kit.sessionToken;
    let visitor: Visitor | null = null;
    if (presented !== undefined && presented !== '') {
      const found = await call('session-exists', { session_token: presented }, ipOpts(ctx));
      if (found.success) {
        const info = found.response.session_info;
        visitor = {
          token: presented,
          userId: info.user_id,
          role: info.user_role,
          email: info.email,
          fullName: info.full_name ?? '',
          loggedIn: info.user_id !== ANONYMOUS_ID,
        };
      }
    }
    visitor ??= {
      token: await newSession(ctx, null),
      userId: ANONYMOUS_ID,
      role: 'anonymous',
      email: '',
      fullName: '',
      loggedIn: false,
    };
    ctx.state.visitor = visitor;
    ctx.state.form = ctx.state.kit.form;
    await next();
  });

  const requireLogin = async (ctx: Ctx, next: Koa.Next): Promise<void> => {
    if (!ctx.state.visitor.loggedIn) return ctx.redirect('/login');
    await next();
  };

  router.get('/', (ctx) => {
    const v = ctx.state.visitor;
    render(
      ctx,
      'Welcome',
      v.loggedIn
        ? html`<p id="welcome">You are logged in as ${v.fullName || v.email} with the role ${v.role}.</p>`
        : html`<p id="welcome">
            You are not logged in. <a href="/signup">Sign up</a> or <a href="/login">log in</a>.
          </p>`,
    );
  });

  // --- sign-up and email verification ---------------------------------------------------------------
  /** A new code for `purpose` mailed to `email`, and the path of the page its link opens (the code inside). */
  const mailedCode = (purpose: 'verify-email' | 'reset-password', email: string, expiresAtMs: number) => {
    const code = makeMailCode(key, { purpose, email, expiresAtMs });
    return { code, path: `${purpose === 'verify-email' ? '/verify' : '/reset'}?code=${encodeURIComponent(code)}` };
  };

  // After an error the form shows again with what was typed (never a password).
  const signupForm = (ctx: Ctx, extra: Html = html``): void => {
    const f = ctx.state.form;
    render(
      ctx,
      'Create your account',
      html`${extra}${form(
          '/signup',
          csrf(ctx),
          'signup-form',
          html`${field('full_name', 'Full name', { value: f['full_name'], autocomplete: 'name' })}
          ${field('email', 'Email', { type: 'email', value: f['email'], autocomplete: 'email' })}
          ${field('password', 'Password', { type: 'password', autocomplete: 'new-password' })}`,
          'Sign up',
        )}
        <p class="aside">Have an account? <a href="/login">Log in</a></p>`,
    );
  };
  router.get('/signup', (ctx) => signupForm(ctx));
  router.post('/signup', async (ctx) => {
    const f = ctx.state.form;
    const email = f['email'] ?? '';
    const created = await call(
      'user-new',
      { full_name: f['full_name'] ?? '', email, password: f['password'] ?? '' },
      ipOpts(ctx),
    );
    // "user exists" gets the same page as a success: a visitor never learns whether an address has an account.
    if (!created.success && failureCodeOf(created.failure_reason) !== 'user_exists')
      return signupForm(ctx, problem(created.messages));
    if (created.success && created.response.send_verification) {
      const { code, path } = mailedCode('verify-email', email, now() + CODE_SECONDS * 1000);
      const sent = await call(
        'user-sendemail-signup',
        {
          email_address: email,
          session_token: ctx.state.visitor.token,
          server_name: serverName,
          server_baseurl: options.baseUrl,
          verification_token: code,
          verification_expiry: CODE_SECONDS,
          created_info: created.response,
          // The link in the mail opens the verification page with the code filled in.
          account_verify_url: path,
        },
        ipOpts(ctx),
      );
      // The reason is for the operator's log, never for the page.
      if (!sent.success) console.error(`user-sendemail-signup: ${sent.failure_reason}`);
    }
    render(
      ctx,
      'Check your mail',
      notice('User account created. Please verify your email address to log in: open the link in the mail we sent.'),
    );
  });

  /**
   * The page the mail's link opens (`/verify?code=…`): one button, the code in the form. A link that verified by
   * itself would be used up by the mail scanners that open every link of a mail; a scanner does not post forms.
   */
  const verifyForm = (ctx: Ctx, code: string, extra: Html = html``): void => {
    const read = code === '' ? null : readMailCode(key, code, { purpose: 'verify-email', nowMs: now() });
    render(
      ctx,
      'Verify your email',
      html`${extra}${
        read?.ok === true
          ? html`<p>Confirm that <strong id="verify-email">${read.email}</strong> is your address.</p>`
          : html``
      }${form(
        '/verify',
        csrf(ctx),
        'verify-form',
        read?.ok === true
          ? hidden('code', code)
          : field('code', 'Code from the mail', { value: code, autocomplete: 'one-time-code' }),
        'Verify my email',
      )}`,
    );
  };
  router.get('/verify', (ctx) => verifyForm(ctx, ctx.URL.searchParams.get('code') ?? ''));
  router.post('/verify', async (ctx) => {
    const code = (ctx.state.form['code'] ?? '').trim();
    const redeemed = await redeemMailCode(key, code, { purpose: 'verify-email', nowMs: now(), used: usedCodes });
    if (!redeemed.ok) return verifyForm(ctx, '', problem([CODE_REFUSED[redeemed.reason]]));
    const verified = await call('user-set-emailverified', { email: redeemed.email }, ipOpts(ctx));
    if (!verified.success) return verifyForm(ctx, '', problem(verified.messages));
    render(
      ctx,
      'Email verified',
      html`<p class="message" id="verified">Your email address is verified. <a href="/login">Log in</a>.</p>`,
    );
  });

  // --- login and logout ---------------------------------------------------------------------------------
  const loginForm = (ctx: Ctx, extra: Html = html``): void =>
    render(
      ctx,
      'Log in',
      html`${extra}${form(
          '/login',
          csrf(ctx),
          'login-form',
          html`${field('email', 'Email', { type: 'email', value: ctx.state.form['email'], autocomplete: 'email' })}
          ${field('password', 'Password', { type: 'password', autocomplete: 'current-password' })}`,
          'Log in',
        )}
        <p class="aside"><a href="/forgot">Forgot your password?</a> · <a href="/signup">Create an account</a></p>
        <div class="divider"><span>or</span></div>
        ${passkeyForm('/login/passkey', csrf(ctx), 'passkey-login-form', 'login', html``, 'Sign in with a passkey')}`,
    );
  router.get('/login', (ctx) => loginForm(ctx));
  router.post('/login', async (ctx) => {
    const f = ctx.state.form;
    const login = await call(
      'user-login',
      { session_token: ctx.state.visitor.token, email: f['email'] ?? '', password: f['password'] ?? '' },
      ipOpts(ctx),
    );
    // A user with a second factor: authsvc kept the session, and the ticket it gave finishes the login.
    if (!login.success && failureCodeOf(login.failure_reason) === 'second_factor_required')
      return secondStepPage(ctx, login.response.login_ticket ?? '', login.response.methods ?? []);
    // authsvc deleted the presented session either way; a failure starts a new anonymous one, and
    // a success a session of the user: a new token at login, so a token planted before cannot ride it.
    if (!login.success) {
      const token = await newSession(ctx, null);
      ctx.state.visitor = { ...ctx.state.visitor, token };
      return loginForm(ctx, problem(login.messages));
    }
    await newSession(ctx, login.response.user_id);
    ctx.redirect('/');
  });
  // A login with a passkey alone (passkey.js posts the browser's answer): it proved both factors.
  router.post('/login/passkey', async (ctx) => {
    const response = parseDict(ctx.state.form['response'] ?? '');
    if (response === null) return loginForm(ctx, problem([NO_PASSKEY]));
    const login = await call('user-login-passkey', { session_token: ctx.state.visitor.token, response }, ipOpts(ctx));
    // A failure leaves the login page's session; a success ended it, and the user's own opens as after a password.
    if (!login.success) return loginForm(ctx, problem(login.messages));
    await newSession(ctx, login.response.user_id);
    ctx.redirect('/');
  });

  // --- the second step of a login, and step-up ---------------------------------------------------------
  /**
   * The forms of a second step or a step-up, to `target` with the `carried` items: a passkey and a code of the
   * authenticator app when the user has them (`kinds`), a recovery code always.
   */
  const codeForms = (
    ctx: Ctx,
    target: string,
    carried: Html,
    kinds: readonly string[],
    purpose: 'secondfactor' | 'stepup',
  ): Html =>
    html`${
      kinds.includes('passkey')
        ? passkeyForm(
            target,
            csrf(ctx),
            'passkey-form',
            purpose,
            html`${carried}${hidden('method', 'passkey')}`,
            purpose === 'stepup' ? 'Confirm with your passkey' : 'Use your passkey',
          )
        : html``
    }
    ${
      kinds.includes('totp')
        ? form(
            target,
            csrf(ctx),
            'code-form',
            html`${carried}${hidden('method', 'totp')}${field('code', 'Code from your authenticator app', { autocomplete: 'one-time-code', inputmode: 'numeric' })}`,
            'Continue',
          )
        : html``
    }
    ${form(
      target,
      csrf(ctx),
      'recovery-form',
      html`${carried}${hidden('method', 'recovery')}${field('code', 'Or one of your recovery codes')}`,
      'Use a recovery code',
    )}`;
  /** The second step; the methods the first step named travel with the ticket, for the page after a wrong code. */
  const secondStepPage = (ctx: Ctx, ticket: string, methods: readonly string[], extra: Html = html``): void =>
    render(
      ctx,
      'Second step',
      html`${extra}${codeForms(
        ctx,
        '/login/second',
        html`${hidden('login_ticket', ticket)}${hidden('methods', methods.join(' '))}`,
        methods,
        'secondfactor',
      )}`,
    );
  router.post('/login/second', async (ctx) => {
    const f = ctx.state.form;
    const ticket = f['login_ticket'] ?? '';
    const methods = (f['methods'] ?? '').split(' ');
    const proof = proofOf(f);
    if (proof === null) return secondStepPage(ctx, ticket, methods, problem([NO_PASSKEY]));
    const done = await call(
      'user-login-secondfactor',
      { session_token: ctx.state.visitor.token, login_ticket: ticket, ...proof },
      ipOpts(ctx),
    );
    if (done.success) {
      await newSession(ctx, done.response.user_id);
      return ctx.redirect('/');
    }
    // A dead ticket (expired, used up, revoked) means starting again from the password.
    if (failureCodeOf(done.failure_reason) === 'login_ticket_invalid') {
      const token = await newSession(ctx, null);
      ctx.state.visitor = { ...ctx.state.visitor, token };
      return loginForm(ctx, problem(done.messages));
    }
    secondStepPage(ctx, ticket, methods, problem(done.messages));
  });

  /** authsvc answered step_up_required: the user proves a factor they have, then goes back to `back` to try again. */
  const stepUpPage = async (ctx: Ctx, back: string, extra: Html = html``): Promise<void> => {
    const v = ctx.state.visitor;
    const listed = await call('user-factor-list', { user_id: v.userId, session_token: v.token }, ipOpts(ctx));
    const kinds = listed.success ? listed.response.factors.filter((f) => f.active).map((f) => f.kind) : [];
    render(
      ctx,
      'Confirm it is you',
      html`${extra}
        <p class="message" id="stepup-needed">
          This needs a fresh confirmation with your second factor or a recovery code.
        </p>
        ${codeForms(ctx, '/stepup', hidden('back', back), kinds, 'stepup')}`,
    );
  };
  const stepUpBack = (back: string | null | undefined): string =>
    back !== null && back !== undefined && STEP_UP_BACKS.includes(back) ? back : '/';
  // Where passkey.js goes when registering a passkey needs a step-up first.
  router.get('/stepup', requireLogin, (ctx) => stepUpPage(ctx, stepUpBack(ctx.URL.searchParams.get('back'))));
  router.post('/stepup', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const back = stepUpBack(ctx.state.form['back']);
    const proof = proofOf(ctx.state.form);
    if (proof === null) return stepUpPage(ctx, back, problem([NO_PASSKEY]));
    const stepped = await call('user-stepup', { user_id: v.userId, session_token: v.token, ...proof }, ipOpts(ctx));
    if (!stepped.success) return stepUpPage(ctx, back, problem(stepped.messages));
    render(
      ctx,
      'Confirmed',
      html`<p class="message" id="stepped-up">Thank you. <a href="${back}" id="continue">Continue</a></p>`,
    );
  });

  // --- second factors ------------------------------------------------------------------------------------
  /** The history's events in the words of this app (the rest by their names, docs/events.md). */
  const EVENT_LABELS: Readonly<Record<string, string>> = {
    'user.signed-up': 'Account created',
    'email.verified': 'Email address verified',
    'email.changed': 'Email address changed',
    'email.sent': 'Mail sent',
    'login.succeeded': 'Signed in',
    'login.failed': 'Failed sign-in',
    'login.second-factor-required': 'Password accepted, second step asked',
    'second-factor.used': 'Second factor used',
    'second-factor.failed': 'Second step failed',
    'account.locked-out': 'Locked after failed sign-ins',
    'password.changed': 'Password changed',
    'password.reset': 'Password reset',
    'factor.added': 'Second factor added',
    'factor.removed': 'Second factor removed',
    'recovery-codes.replaced': 'New recovery codes',
    'apikey.issued': 'API key created',
    'apikey.revoked': 'API key revoked',
    'session.ended': 'Signed out elsewhere',
  };
  const securityPage = async (ctx: Ctx, extra: Html = html``): Promise<void> => {
    const v = ctx.state.visitor;
    const asker = { user_id: v.userId, session_token: v.token };
    const [listed, devices, history] = await Promise.all([
      call('user-factor-list', asker, ipOpts(ctx)),
      call('session-list', asker, ipOpts(ctx)),
      call('user-events', { ...asker, limit: 20 }, ipOpts(ctx)),
    ]);
    if (!listed.success) return render(ctx, 'Security', problem(listed.messages));
    if (!devices.success) return render(ctx, 'Security', problem(devices.messages));
    if (!history.success) return render(ctx, 'Security', problem(history.messages));
    const factors = listed.response.factors.filter((f) => f.active);
    const others = devices.response.sessions.filter((d) => !d.current);
    render(
      ctx,
      'Security',
      html`${extra}
        <h2>Devices</h2>
        <ul id="devices">
          ${devices.response.sessions.map(
            (d) =>
              html`<li class="device" data-session-id="${d.session_id}">
                ${d.user_agent} from ${d.ip_address}, signed in ${d.created}, last seen ${d.last_seen}
                ${
                  d.current
                    ? html`<strong class="this-device">(this device)</strong>`
                    : form(
                        '/security/devices/revoke',
                        csrf(ctx),
                        `revoke-${d.session_id}`,
                        hidden('session_id', d.session_id),
                        'Sign out',
                      )
                }
              </li>`,
          )}
        </ul>
        ${others.length === 0 ? html`` : form('/security/devices/others', csrf(ctx), 'revoke-others-form', html``, 'Sign out every other device')}
        <h2>Recent activity</h2>
        <ul id="history">
          ${history.response.events.map(
            (e) =>
              html`<li class="event" data-event="${e.event}">
                ${EVENT_LABELS[e.event] ?? e.event},
                ${e.time}${e.ip_address === null ? html`` : html` from ${e.ip_address}`}
                ${e.user_agent === null ? html`` : html`(${e.user_agent})`}
              </li>`,
          )}
        </ul>
        <h2>Second factors</h2>
        ${
          factors.length === 0
            ? html`<p id="no-factors">You have no second factor: your password alone opens your account.</p>`
            : html`<ul id="factors">
                ${factors.map(
                  (f) =>
                    html`<li>
                      ${f.name} (${f.kind === 'totp' ? 'authenticator app' : 'passkey'}), added ${f.created}
                    </li>`,
                )}
              </ul>`
        }
        <p id="codes-left">Recovery codes left: ${listed.response.recovery_codes_left}</p>
        ${form('/security/totp', csrf(ctx), 'totp-form', field('name', 'Name of the app or device'), 'Add an authenticator app')}
        ${passkeyForm('/security/passkey', csrf(ctx), 'passkey-register-form', 'register', field('passkey_name', 'Name of the passkey'), 'Add a passkey')}
        ${factors.length === 0 ? html`` : form('/security/recovery', csrf(ctx), 'recovery-new-form', html``, 'New recovery codes')}`,
    );
  };
  const recoveryCodesList = (codes: readonly string[]): Html =>
    html`<p class="message">
        Keep these recovery codes somewhere safe: each logs you in once in place of your second factor. They are shown
        only now.
      </p>
      <ul id="recovery-codes">
        ${codes.map((code) => html`<li><code>${code}</code></li>`)}
      </ul>`;
  router.get('/security', requireLogin, (ctx) => securityPage(ctx));
  // A device signed out from here is refused by authsvc at its next request; its cookie then opens nothing.
  router.post('/security/devices/revoke', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const reply = await call(
      'session-revoke',
      { user_id: v.userId, session_token: v.token, target_session_id: ctx.state.form['session_id'] ?? '' },
      ipOpts(ctx),
    );
    return securityPage(ctx, reply.success ? notice('That device is signed out.') : problem(reply.messages));
  });
  router.post('/security/devices/others', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const reply = await call(
      'session-delete-userid',
      { user_id: v.userId, session_token: v.token, keep_current_session: true },
      ipOpts(ctx),
    );
    return securityPage(ctx, reply.success ? notice('Every other device is signed out.') : problem(reply.messages));
  });
  router.post('/security/totp', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const started = await call(
      'user-totp-new',
      { user_id: v.userId, session_token: v.token, name: ctx.state.form['name'] ?? '' },
      ipOpts(ctx),
    );
    if (!started.success) {
      if (failureCodeOf(started.failure_reason) === 'step_up_required') return stepUpPage(ctx, '/security');
      return securityPage(ctx, problem(started.messages));
    }
    const { factor_id, secret, qr_svg } = started.response;
    render(
      ctx,
      'Add an authenticator app',
      // The QR code is authsvc's own SVG (no script in it): shown as it came.
      html`<p>Scan this code with your authenticator app, or type the key in.</p>
        <div id="qr">${{ html: qr_svg }}</div>
        <p>Key: <code id="totp-secret">${secret}</code></p>
        ${form(
          '/security/totp/confirm',
          csrf(ctx),
          'totp-confirm-form',
          html`${hidden('factor_id', factor_id)}${field('code', 'The code the app shows', { autocomplete: 'one-time-code', inputmode: 'numeric' })}`,
          'Confirm',
        )}`,
    );
  });
  router.post('/security/totp/confirm', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const confirmed = await call(
      'user-totp-confirm',
      {
        user_id: v.userId,
        session_token: v.token,
        factor_id: ctx.state.form['factor_id'] ?? '',
        code: ctx.state.form['code'] ?? '',
      },
      ipOpts(ctx),
    );
    if (!confirmed.success) return securityPage(ctx, problem(confirmed.messages));
    const codes = confirmed.response.recovery_codes;
    await securityPage(
      ctx,
      html`<p class="message" id="totp-added">Your authenticator app is set up.</p>
        ${codes === undefined ? html`` : recoveryCodesList(codes)}`,
    );
  });
  // passkey.js posts the browser's new passkey here, after asking /passkey/options for the ceremony.
  router.post('/security/passkey', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const response = parseDict(ctx.state.form['response'] ?? '');
    if (response === null) return securityPage(ctx, problem([NO_PASSKEY]));
    const added = await call(
      'user-passkey-register',
      { user_id: v.userId, session_token: v.token, name: ctx.state.form['passkey_name'] ?? '', response },
      ipOpts(ctx),
    );
    if (!added.success) {
      if (failureCodeOf(added.failure_reason) === 'step_up_required') return stepUpPage(ctx, '/security');
      return securityPage(ctx, problem(added.messages));
    }
    const codes = added.response.recovery_codes;
    await securityPage(
      ctx,
      html`<p class="message" id="passkey-added">Your passkey is set up.</p>
        ${codes === undefined ? html`` : recoveryCodesList(codes)}`,
    );
  });
  router.post('/security/recovery', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const renewed = await call('user-recoverycodes-new', { user_id: v.userId, session_token: v.token }, ipOpts(ctx));
    if (!renewed.success) {
      if (failureCodeOf(renewed.failure_reason) === 'step_up_required') return stepUpPage(ctx, '/security');
      return securityPage(ctx, problem(renewed.messages));
    }
    await securityPage(ctx, recoveryCodesList(renewed.response.recovery_codes));
  });

  // --- the options of a passkey ceremony, for passkey.js (JSON) --------------------------------------------
  // The script posts its form's items; the session it runs for is the one in the cookie, never in the page.
  router.post('/passkey/options', async (ctx) => {
    const v = ctx.state.visitor;
    const f = ctx.state.form;
    const purpose = f['purpose'];
    const asked: ActionInput<'user-passkey-options'> | null =
      purpose === 'login'
        ? { session_token: v.token, purpose }
        : purpose === 'secondfactor'
          ? { session_token: v.token, purpose, login_ticket: f['login_ticket'] ?? '' }
          : (purpose === 'register' || purpose === 'stepup') && v.loggedIn
            ? { session_token: v.token, purpose, user_id: v.userId }
            : null;
    if (asked === null) {
      ctx.status = 400;
      ctx.body = { error: 'Please log in first.' };
      return;
    }
    const reply = await call('user-passkey-options', asked, ipOpts(ctx));
    if (reply.success) ctx.body = { options: reply.response.options };
    // Adding a passkey next to another factor needs that factor proved first.
    else if (failureCodeOf(reply.failure_reason) === 'step_up_required')
      ctx.body = { redirect: '/stepup?back=/security' };
    else ctx.body = { error: reply.messages.join(' ') };
  });

  router.post('/logout', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    await call('user-logout', { session_token: v.token, user_id: v.userId }, ipOpts(ctx));
    ctx.state.kit.setSession(null);
    ctx.redirect('/');
  });

  // --- a page that depends on the policy -------------------------------------------------------------------
  router.get('/datasets', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const datasets = [
      { name: 'Public star catalogue', owner: 1, visibility: 'public', sharedwith: '' },
      { name: 'Administrator’s private notes', owner: 1, visibility: 'private', sharedwith: '' },
      { name: 'Your own notebook', owner: v.userId, visibility: 'private', sharedwith: '' },
      { name: 'Survey shared with you', owner: 1, visibility: 'shared', sharedwith: String(v.userId) },
    ];
    const items = await Promise.all(
      datasets.map(async (d, i) => {
        const access = await call(
          'user-check-access',
          {
            user_id: v.userId,
            user_role: v.role,
            action: 'view',
            target_name: 'dataset',
            target_owner: d.owner,
            target_visibility: d.visibility,
            target_sharedwith: d.sharedwith,
          },
          ipOpts(ctx),
        );
        return access.success
          ? html`<li class="granted" id="dataset-${i}">
              <strong>${d.name}</strong> (${d.visibility}): the content, shown because you may view it
              (${access.response.relation}).
            </li>`
          : html`<li class="denied" id="dataset-${i}">
              <strong>${d.name}</strong> (${d.visibility}): hidden, you may not view it.
            </li>`;
      }),
    );
    render(
      ctx,
      'Datasets',
      html`<p>Each item is shown only when authsvc's <code>user-check-access</code> allows you to view it.</p>
        <ul id="datasets">
          ${items}
        </ul>`,
    );
  });

  // --- password change, forgotten password --------------------------------------------------------------------
  const passwordForm = (ctx: Ctx, extra: Html = html``): void =>
    render(
      ctx,
      'Change password',
      html`${extra}${form(
        '/password',
        csrf(ctx),
        'password-form',
        html`${field('current_password', 'Current password', { type: 'password', autocomplete: 'current-password' })}
        ${field('new_password', 'New password', { type: 'password', autocomplete: 'new-password' })}`,
        'Change password',
      )}`,
    );
  router.get('/password', requireLogin, (ctx) => passwordForm(ctx));
  router.post('/password', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const changed = await call(
      'user-changepass',
      {
        user_id: v.userId,
        session_token: v.token,
        full_name: v.fullName,
        email: v.email,
        current_password: ctx.state.form['current_password'] ?? '',
        new_password: ctx.state.form['new_password'] ?? '',
      },
      ipOpts(ctx),
    );
    if (!changed.success) {
      // With a second factor, a password change needs it proved on this session lately.
      if (failureCodeOf(changed.failure_reason) === 'step_up_required') return stepUpPage(ctx, '/password');
      return passwordForm(ctx, problem(changed.messages));
    }
    passwordForm(ctx, html`<p class="message" id="changed">Your password was changed.</p>`);
  });

  const forgotForm = (ctx: Ctx): void =>
    render(
      ctx,
      'Forgot password',
      html`<p>We will mail you a link to choose a new password.</p>
        ${form(
          '/forgot',
          csrf(ctx),
          'forgot-form',
          field('email', 'Email', { type: 'email', value: ctx.state.form['email'], autocomplete: 'email' }),
          'Send me a link',
        )}`,
    );
  router.get('/forgot', forgotForm);
  router.post('/forgot', async (ctx) => {
    const email = ctx.state.form['email'] ?? '';
    const { code, path } = mailedCode('reset-password', email, now() + CODE_SECONDS * 1000);
    const sent = await call(
      'user-sendemail-forgotpass',
      {
        email_address: email,
        session_token: ctx.state.visitor.token,
        server_name: serverName,
        server_baseurl: options.baseUrl,
        verification_token: code,
        verification_expiry: CODE_SECONDS,
        password_forgot_url: path,
      },
      ipOpts(ctx),
    );
    if (!sent.success) console.error(`user-sendemail-forgotpass: ${sent.failure_reason}`);
    // The same answer whether or not the address has an account.
    render(
      ctx,
      'Check your mail',
      html`${notice(sent.messages.join(' '))}
        <p>Open the link in the mail, or <a href="/reset">enter the code</a>.</p>`,
    );
  });

  /**
   * The page the mail's link opens (`/reset?code=…`): the new password, the code in the form. A hidden username item
   * tells the browser's password manager whose password it is.
   */
  const resetForm = (ctx: Ctx, code: string, extra: Html = html``): void => {
    const read = code === '' ? null : readMailCode(key, code, { purpose: 'reset-password', nowMs: now() });
    const fields =
      read?.ok === true
        ? html`<p>Choose a new password for <strong id="reset-email">${read.email}</strong>.</p>
            ${hidden('code', code)}
            <input type="email" name="username" value="${read.email}" autocomplete="username" hidden />`
        : field('code', 'Code from the mail', { value: code, autocomplete: 'one-time-code' });
    render(
      ctx,
      'Reset password',
      html`${extra}${form(
        '/reset',
        csrf(ctx),
        'reset-form',
        html`${fields}${field('new_password', 'New password', { type: 'password', autocomplete: 'new-password' })}`,
        'Reset password',
      )}`,
    );
  };
  router.get('/reset', (ctx) => resetForm(ctx, ctx.URL.searchParams.get('code') ?? ''));
  router.post('/reset', async (ctx) => {
    const f = ctx.state.form;
    // authsvc trusts the frontend to have checked the mailed code: this check is the reset's security.
    const redeemed = await redeemMailCode(key, (f['code'] ?? '').trim(), {
      purpose: 'reset-password',
      nowMs: now(),
      used: usedCodes,
    });
    if (!redeemed.ok) return resetForm(ctx, '', problem([CODE_REFUSED[redeemed.reason]]));
    const reset = await call(
      'user-resetpass',
      { email_address: redeemed.email, new_password: f['new_password'] ?? '', session_token: ctx.state.visitor.token },
      ipOpts(ctx),
    );
    // Refused (a password too weak…): the code is used up, so the page gets a new one for the same address and
    // expiry; the visitor has just shown they hold the mailed one (docs/design.md#mailed-codes-are-single-use).
    if (!reset.success) {
      const again = makeMailCode(key, {
        purpose: 'reset-password',
        email: redeemed.email,
        expiresAtMs: redeemed.expiresAtMs,
      });
      return resetForm(ctx, again, problem(reset.messages));
    }
    render(
      ctx,
      'Password reset',
      html`<p class="message" id="reset-done">Your password was reset. <a href="/login">Log in</a>.</p>`,
    );
  });

  // --- API keys (no-session keys with a refresh token) -------------------------------------------------------
  const keyForms = (ctx: Ctx, apikey: string, refreshToken: string): Html =>
    html`<h2>Your key</h2>
      <textarea id="apikey" readonly rows="6">${apikey}</textarea>
      <p>Refresh token: <code id="refresh-token">${refreshToken}</code></p>
      ${form(
        '/apikeys/verify',
        csrf(ctx),
        'verify-key-form',
        html`<input type="hidden" name="apikey" value="${apikey}" /><input
            type="hidden"
            name="refresh_token"
            value="${refreshToken}"
          />`,
        'Verify this key',
      )}
      ${form(
        '/apikeys/refresh',
        csrf(ctx),
        'refresh-key-form',
        html`<input type="hidden" name="apikey" value="${apikey}" /><input
            type="hidden"
            name="refresh_token"
            value="${refreshToken}"
          />`,
        'Refresh this key',
      )}`;
  const apikeyPage = (ctx: Ctx, extra: Html = html``): void =>
    render(
      ctx,
      'API keys',
      html`<p>
          A key for scripts calling your API: it names you, your role and this address, and lasts an hour; its refresh
          token (a day) exchanges it for a new one.
        </p>
        ${form('/apikeys/new', csrf(ctx), 'new-key-form', html``, 'Issue a new key')}${extra}`,
    );
  const lifetimes = { expires_seconds: 3600, not_valid_before: 0, refresh_expires: 86_400, refresh_nbf: 0 };

  router.get('/apikeys', requireLogin, (ctx) => apikeyPage(ctx));
  router.post('/apikeys/new', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const issued = await call(
      'apikey-new-nosession',
      {
        issuer: 'authsvc-example-frontend',
        audience: 'example-api',
        subject: ['/api/datasets'],
        apiversion: 1,
        user_id: v.userId,
        user_role: v.role,
        ip_address: clientIpOf(ctx),
        // For a user with a second factor, the session that proved it lately.
        session_token: v.token,
        ...lifetimes,
      },
      ipOpts(ctx),
    );
    if (!issued.success) {
      if (failureCodeOf(issued.failure_reason) === 'step_up_required') return stepUpPage(ctx, '/apikeys');
      return apikeyPage(ctx, problem(issued.messages));
    }
    apikeyPage(
      ctx,
      html`<p class="message" id="issued">${issued.messages.join(' ')}</p>
        ${keyForms(ctx, issued.response.apikey, issued.response.refresh_token)}`,
    );
  });
  router.post('/apikeys/verify', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const apikey = ctx.state.form['apikey'] ?? '';
    const dict = parseDict(apikey);
    if (dict === null) return apikeyPage(ctx, problem(['That is not an API key.']));
    const verified = await call(
      'apikey-verify-nosession',
      { apikey_dict: dict, user_id: v.userId, user_role: v.role },
      ipOpts(ctx),
    );
    apikeyPage(
      ctx,
      html`<p class="${verified.success ? 'message' : 'error'}" id="verify-result">${verified.messages.join(' ')}</p>
        ${keyForms(ctx, apikey, ctx.state.form['refresh_token'] ?? '')}`,
    );
  });
  router.post('/apikeys/refresh', requireLogin, async (ctx) => {
    const v = ctx.state.visitor;
    const dict = parseDict(ctx.state.form['apikey'] ?? '');
    if (dict === null) return apikeyPage(ctx, problem(['That is not an API key.']));
    const refreshed = await call(
      'apikey-refresh-nosession',
      {
        apikey_dict: dict,
        user_id: v.userId,
        user_role: v.role,
        refresh_token: ctx.state.form['refresh_token'] ?? '',
        ip_address: clientIpOf(ctx),
        ...lifetimes,
      },
      ipOpts(ctx),
    );
    if (!refreshed.success) return apikeyPage(ctx, problem(refreshed.messages));
    apikeyPage(
      ctx,
      html`<p class="message" id="refreshed">${refreshed.messages.join(' ')}</p>
        ${keyForms(ctx, refreshed.response.apikey, refreshed.response.refresh_token)}`,
    );
  });

  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/**
 * The audit-event catalogue, observed: every event of src/log/audit-catalogue.ts is triggered through the
 * real protocol (or a real SIGHUP-equivalent reload) on a frozen clock, reaches an injected sink with
 * its catalogue fields, and is logged at its level with its own time, the request id and digests only.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AuditEvent, AuditSink } from '../../src/log/audit.js';
import { AUDIT_EVENTS, auditEventNames } from '../../src/log/audit-catalogue.js';
import type { AuditEventName } from '../../src/log/audit-catalogue.js';
import { parseRateLimits } from '../../src/services/admission/index.js';
import { piiHasher } from '../../src/log/logger.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { actionNames } from '../../src/protocol/index.js';
import { totpCodeAt } from '../../src/accounts/second-factor.js';
import { GOOD_PASSWORD, openSession, verifiedUser } from '../helpers/accounts.js';
import { startTestServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import type { LogLine, TestServer } from '../helpers/server.js';
import { startSink } from '../mail/smtp-sink.js';
import type { SmtpSink } from '../mail/smtp-sink.js';
import { logsWritten } from '../helpers/turns.js';

const SECOND = 'quartz-lantern-meadow-93';
const THIRD = 'saffron-harbour-kettle-58';
const ADMIN = { email: 'admin@example.org', password: 'correct horse battery staple' };
const IP = '203.0.113.7';
const pii = piiHasher('test-pii-salt');

/** Records each event with the server's time when it was recorded. */
function recorder(
  now: () => number = () => 0,
): AuditSink & { readonly events: AuditEvent[]; readonly times: number[] } {
  const events: AuditEvent[] = [];
  const times: number[] = [];
  return {
    events,
    times,
    record(event) {
      events.push(event);
      times.push(now());
    },
  };
}

/** Every event and log line must hold nothing of these in clear. */
const SECRETS = [GOOD_PASSWORD, SECOND, THIRD, ADMIN.password, 'ada@example.org', 'refused@example.org', IP];

const PASSKEY_ORIGIN = 'http://localhost:3000';

describe('the audit events', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-events-'));
  const policyPath = join(dir, 'policy.json');
  copyFileSync(join(PKG_DIR, 'policy', 'default.json'), policyPath);
  let server: TestServer;
  const sink = recorder(() => server.clock.now());
  let smtp: SmtpSink;
  const seen = new Set<AuditEventName>();

  before(async () => {
    smtp = await startSink({ refuse: (address) => address.startsWith('refused') });
    server = await startTestServer({
      auditSinks: [sink],
      config: {
        userLockTries: 3,
        userLockTimeSeconds: 600,
        refreshGraceSeconds: 10,
        permissionsPath: policyPath,
        passkeys: { rpId: 'localhost', rpName: 'authsvc', origins: [PASSKEY_ORIGIN] },
        email: { server: '127.0.0.1', port: smtp.port, user: '', pass: '', sender: 'a@example.org', tlsCa: null },
      },
    });
  });
  after(async () => {
    await server.close();
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The events recorded while `run` ran, each checked against the log. */
  async function during(run: () => Promise<unknown>): Promise<AuditEvent[]> {
    await logsWritten(); // the lines of what ran before are in, and none of them is counted here
    const [events, logs] = [sink.events.length, server.logs.length];
    await run();
    await logsWritten();
    const recorded = sink.events.slice(events);
    const logged = server.logs.slice(logs).filter((l) => l.message === 'audit');
    assert.equal(logged.length, recorded.length, 'one log line per event');
    recorded.forEach((event, i) => checkLogged(event, logged[i] as LogLine, sink.times[events + i] ?? 0));
    for (const event of recorded) seen.add(event.event);
    return recorded;
  }

  function checkLogged(event: AuditEvent, line: LogLine, at: number): void {
    const spec = AUDIT_EVENTS[event.event];
    assert.equal(line['audit'], event.event);
    assert.equal(line.level, spec.level, `${event.event} is logged at ${spec.level}`);
    assert.equal(line['time'], new Date(at).toISOString(), 'its own time, from the server clock');
    assert.equal(line['reqid'], event.reqid);
    const text = JSON.stringify(line);
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `${event.event} holds no ${secret} in clear`);
    if (event.subject?.ip !== undefined) assert.equal(line['ip'], pii(event.subject.ip));
    if (event.subject?.userId !== undefined) assert.equal(line['user'], pii(event.subject.userId));
    if (event.subject?.email !== undefined) assert.equal(line['email'], pii(event.subject.email));
    assert.ok(!('account' in line) && !('userAgent' in line), 'the history-only subject fields are not published');
    const fields = Object.keys(spec.detail);
    for (const key of Object.keys(event.detail ?? {})) assert.ok(fields.includes(key), `${key} is in the catalogue`);
    for (const [key, field] of Object.entries(spec.detail) as [string, { type: string; optional?: true }][]) {
      const value = (event.detail as Record<string, unknown> | undefined)?.[key];
      if (value === undefined) assert.ok(field.optional, `${event.event}.${key} is given`);
      else assert.equal(typeof value, field.type, `${event.event}.${key} is a ${field.type}`);
    }
  }

  const only = (events: AuditEvent[], name: AuditEventName) => events.filter((e) => e.event === name);

  async function login(email: string, password: string): Promise<{ userId: number; token: string } | null> {
    const reply = await server.call('user-login', { session_token: await openSession(server), email, password });
    if (!reply.success) return null;
    return { userId: reply.response.user_id, token: await openSession(server, reply.response.user_id) };
  }

  let adaId = 0;
  let ada: { userId: number; token: string } | null = null;

  it('records sign-up, verification, mail, sessions and logins', async () => {
    const created = await during(async () => {
      const reply = await server.call('user-new', {
        full_name: 'Ada',
        email: 'ada@example.org',
        password: GOOD_PASSWORD,
      });
      assert.ok(reply.success);
      adaId = reply.response.user_id;
      const mailed = await server.call('user-sendemail-signup', {
        email_address: 'ada@example.org',
        session_token: await openSession(server),
        server_name: 'Example',
        server_baseurl: 'https://app.example.org/',
        verification_token: 'token',
        verification_expiry: 900,
        created_info: reply.response,
        account_verify_url: '/verify',
      });
      assert.ok(mailed.success, JSON.stringify(mailed));
    });
    assert.deepEqual(only(created, 'user.signed-up')[0]?.subject, { userId: adaId, ip: IP });
    assert.equal(only(created, 'email.sent').length, 1);
    assert.deepEqual(
      (await during(() => server.call('user-set-emailverified', { email: 'ada@example.org' }))).map((e) => e.event),
      ['email.verified'],
    );
    const logged = await during(async () => {
      ada = await login('ada@example.org', GOOD_PASSWORD);
    });
    assert.ok(ada);
    assert.deepEqual(
      logged.map((e) => e.event),
      ['session.created', 'login.succeeded', 'session.created'],
    );
    assert.deepEqual(only(logged, 'login.succeeded')[0]?.detail, { action: 'user-login' });
  });

  it('records every failed password check at warn, the account existing or not, then the lock-out', async () => {
    const session = await openSession(server);
    const fresh = await openSession(server);
    const failed = await during(async () => {
      await server.call('user-login', { session_token: session, email: 'nobody@example.org', password: 'x' });
      await server.call('user-passcheck-nosession', { email: 'ada@example.org', password: 'wrong one' });
      await server.call('user-passcheck', { session_token: ada?.token ?? '', password: 'wrong two' });
      await server.call('user-passcheck-nosession', { email: 'ada@example.org', password: 'wrong three' });
      await server.call('user-login', { session_token: fresh, email: 'ada@example.org', password: 'wrong four' });
    });
    assert.deepEqual(
      failed.map((e) => [e.event, e.detail]),
      [
        ['login.failed', { action: 'user-login', reason: 'wrong_credentials' }],
        ['login.failed', { action: 'user-passcheck-nosession', reason: 'wrong_credentials' }],
        ['login.failed', { action: 'user-passcheck', reason: 'wrong_credentials' }],
        ['login.failed', { action: 'user-passcheck-nosession', reason: 'wrong_credentials' }],
        // The failure after userlocktries (3) locks the account.
        ['account.locked-out', { failed_login_tries: 4, locked_for_s: 600 }],
        ['login.failed', { action: 'user-login', reason: 'temporarily_locked' }],
      ],
    );
    // The account (the dummy, 3, for an unknown address) and the browser are for the user's history only.
    assert.deepEqual(failed[0]?.subject, { email: 'nobody@example.org', ip: IP, account: 3, userAgent: 'test agent' });
    assert.deepEqual(failed[1]?.subject, { email: 'ada@example.org', ip: IP, account: adaId });
    assert.deepEqual(failed[2]?.subject, { userId: adaId, ip: IP, userAgent: 'test agent' });
    assert.deepEqual(failed[4]?.subject, { userId: adaId, ip: IP });
    // The lock lasts userlocktime; the rest of the journey runs after it.
    server.clock.advance(601_000);
  });

  it('records password changes and resets, logouts and ended sessions', async () => {
    ada = await login('ada@example.org', GOOD_PASSWORD);
    assert.ok(ada);
    const changed = await during(() =>
      server.call('user-changepass', {
        user_id: adaId,
        session_token: ada?.token ?? '',
        full_name: 'Ada',
        email: 'ada@example.org',
        current_password: GOOD_PASSWORD,
        new_password: SECOND,
      }),
    );
    assert.deepEqual(
      changed.map((e) => [e.event, e.detail]),
      [
        // The current password is checked by the one credential check, which records every check.
        ['login.succeeded', { action: 'user-changepass' }],
        ['password.changed', { sessions_ended: 1, keys_revoked: 0 }],
      ],
    );
    const anonymous = await openSession(server);
    const reset = await during(async () => {
      const reply = await server.call('user-resetpass', {
        email_address: 'ada@example.org',
        new_password: THIRD,
        session_token: anonymous,
      });
      assert.ok(reply.success, JSON.stringify(reply));
    });
    assert.ok(reset.some((e) => e.event === 'password.reset'));
    ada = await login('ada@example.org', THIRD);
    assert.ok(ada);
    const ended = await during(async () => {
      const extra = await openSession(server, adaId);
      await server.call('session-delete', { session_token: extra });
      await server.call('session-delete-userid', {
        user_id: adaId,
        session_token: ada?.token ?? '',
        keep_current_session: true,
      });
    });
    const endings = only(ended, 'session.ended').map((e) => e.detail);
    assert.deepEqual(endings[0], { action: 'session-delete', sessions: 1 });
    assert.equal(endings.length >= 1, true);
    const out = await during(() => server.call('user-logout', { session_token: ada?.token ?? '', user_id: adaId }));
    assert.deepEqual(
      out.map((e) => [e.event, e.detail]),
      [['session.ended', { action: 'user-logout', sessions: 1 }]],
    );
    const here = await openSession(server, adaId);
    const phone = await server.call('session-new', {
      ip_address: '198.51.100.9',
      user_agent: 'phone',
      user_id: adaId,
      extra_info_json: {},
    });
    assert.ok(phone.success);
    const revoked = await during(() =>
      server.call('session-revoke', {
        user_id: adaId,
        session_token: here,
        target_session_id: phone.response.session_id,
      }),
    );
    assert.deepEqual(
      revoked.map((e) => [e.event, e.detail]),
      [['session.ended', { action: 'session-revoke', sessions: 1, by_superuser: false }]],
    );
  });

  it('records a failed mail at warn', async () => {
    const failed = await during(async () => {
      const reply = await server.call('user-new', { full_name: 'R', email: 'refused@example.org', password: SECOND });
      assert.ok(reply.success);
      await server.call('user-sendemail-signup', {
        email_address: 'refused@example.org',
        session_token: await openSession(server),
        server_name: 'Example',
        server_baseurl: 'https://app.example.org/',
        verification_token: 'token',
        verification_expiry: 900,
        created_info: reply.response,
        account_verify_url: '/verify',
      });
    });
    const notSent = only(failed, 'email.not-sent')[0];
    assert.equal(notSent?.event === 'email.not-sent' && notSent.detail.failure, 'smtp_rejected');
  });

  it('records what a superuser does: edit, lock, unlock', async () => {
    const admin = await login(ADMIN.email, ADMIN.password);
    assert.ok(admin);
    const initiator = { user_id: admin.userId, user_role: 'superuser', session_token: admin.token };
    const done = await during(async () => {
      await server.call('user-edit', { ...initiator, target_userid: adaId, update_dict: { user_role: 'staff' } });
      await server.call('user-lock', { ...initiator, target_userid: adaId, action: 'lock' });
      await server.call('user-lock', { ...initiator, target_userid: adaId, action: 'unlock' });
      await server.call('user-edit', {
        ...initiator,
        target_userid: adaId,
        update_dict: { email: 'ada2@example.org' },
      });
      await server.call('user-edit', { ...initiator, target_userid: adaId, update_dict: { email: 'ada@example.org' } });
    });
    assert.deepEqual(
      done.map((e) => [e.event, e.detail]),
      [
        ['user.edited', { action: 'user-edit', role: 'staff', previous_role: 'authenticated' }],
        ['user.locked', { changed: true, role: 'locked', ended_sessions: 0 }],
        ['user.unlocked', { changed: true, role: 'staff' }],
        ['email.changed', { action: 'user-edit', by_superuser: true }],
        ['email.changed', { action: 'user-edit', by_superuser: true }],
      ],
    );
    // The subject's email is the address the change replaced (where the security mail goes).
    assert.deepEqual(
      only(done, 'email.changed').map((e) => e.subject?.email),
      ['ada@example.org', 'ada2@example.org'],
    );
  });

  it('records API keys issued, revoked, refreshed and a refresh token reused', async () => {
    ada = await login('ada@example.org', THIRD);
    assert.ok(ada);
    const events = await during(async () => {
      const issued = await server.call('apikey-new', {
        issuer: 'frontend',
        audience: 'api.example.org',
        subject: ['/api/data'],
        apiversion: 1,
        expires_days: 30,
        not_valid_before: 0,
        user_id: adaId,
        user_role: 'staff',
        ip_address: '198.51.100.20',
        user_agent: 'test agent',
        session_token: ada?.token ?? '',
      });
      assert.ok(issued.success, JSON.stringify(issued));
      const dict = JSON.parse(issued.response.apikey) as Record<string, unknown>;
      await server.call('apikey-revoke', { apikey_dict: dict, user_id: adaId, user_role: 'staff' });
      const nosession = await server.call('apikey-new-nosession', {
        issuer: 'frontend',
        audience: 'api.example.org',
        subject: ['/api/a'],
        apiversion: 2,
        expires_seconds: 60,
        not_valid_before: 0,
        refresh_expires: 3600,
        refresh_nbf: 0,
        user_id: adaId,
        user_role: 'staff',
        ip_address: '192.0.2.1',
      });
      assert.ok(nosession.success, JSON.stringify(nosession));
      const key = JSON.parse(nosession.response.apikey) as Record<string, unknown>;
      const refresh = {
        apikey_dict: key,
        user_id: adaId,
        user_role: 'staff',
        refresh_token: nosession.response.refresh_token,
        ip_address: '192.0.2.99',
        expires_seconds: 120,
        not_valid_before: 0,
        refresh_expires: 7200,
        refresh_nbf: 0,
      };
      assert.ok((await server.call('apikey-refresh-nosession', refresh)).success);
      server.clock.advance(60_000);
      assert.equal((await server.call('apikey-refresh-nosession', refresh)).success, false);
    });
    assert.deepEqual(
      events.map((e) => [e.event, e.detail]),
      [
        ['apikey.issued', { action: 'apikey-new' }],
        ['apikey.revoked', { action: 'apikey-revoke', keys: 1 }],
        ['apikey.issued', { action: 'apikey-new-nosession' }],
        ['apikey.refreshed', undefined],
        ['apikey.refresh-reuse-detected', { revoked_keys: 1 }],
      ],
    );
  });

  it('records an account deleted', async () => {
    const deleted = await during(() =>
      server.call('user-delete', { email: 'ada@example.org', user_id: adaId, password: THIRD }),
    );
    assert.deepEqual(
      deleted.map((e) => [e.event, e.detail]),
      [
        ['login.succeeded', { action: 'user-delete' }],
        ['user.deleted', { by_superuser: false }],
      ],
    );
  });

  it('records policy reloads, accepted and refused, with no request id', async () => {
    const accepted = await during(() => Promise.resolve(assert.equal(server.app.reloadPolicy().ok, true)));
    assert.equal(accepted[0]?.event, 'policy.reloaded');
    assert.equal(accepted[0]?.reqid, null);
    assert.equal(accepted[0]?.detail?.changed, false);
    writeFileSync(policyPath, '{\n  "roles": ["superuser", "manage"]\n}\n');
    const refused = await during(() => Promise.resolve(assert.equal(server.app.reloadPolicy().ok, false)));
    assert.equal(refused[0]?.event, 'policy.reload-refused');
    assert.ok((refused[0]?.detail?.problems ?? 0) > 0);
  });

  it('records a rate-limit hit at warn, once per bucket and minute', async () => {
    const limits = parseRateLimits('session-new:1;burst:1', actionNames);
    assert.ok(limits.ok && limits.value !== null);
    const limitedSink = recorder();
    const limited = await startTestServer({ auditSinks: [limitedSink], config: { rateLimits: limits.value } });
    try {
      for (let i = 0; i < 4; i++) {
        const body = { ip_address: IP, user_agent: 'x', user_id: null, expires: 1, extra_info_json: {} };
        await limited.call('session-new', body).catch(() => undefined);
      }
      await logsWritten();
      const hits = limitedSink.events.filter((e) => e.event === 'ratelimit.hit');
      assert.equal(hits.length, 1);
      assert.equal(hits[0]?.detail?.action, 'session-new');
      assert.equal(limited.logs.find((l) => l['audit'] === 'ratelimit.hit')?.level, 'warn');
      seen.add('ratelimit.hit');
    } finally {
      await limited.close();
    }
  });

  it('records second factors: added, a login asking for one, a wrong and a right code, new recovery codes, removal', async () => {
    const userId = await verifiedUser(server, 'grace@example.org');
    const session = await openSession(server, userId);
    let secret = '';
    let factorId = '';
    const added = await during(async () => {
      const started = await server.call('user-totp-new', { user_id: userId, session_token: session, name: 'phone' });
      assert.ok(started.success);
      ({ secret, factor_id: factorId } = started.response);
      const confirm = { user_id: userId, session_token: session, factor_id: factorId };
      assert.equal((await server.call('user-totp-confirm', { ...confirm, code: '000000' })).success, false);
      const code = totpCodeAt(secret, server.clock.now());
      assert.ok((await server.call('user-totp-confirm', { ...confirm, code })).success);
    });
    assert.deepEqual(
      added.map((e) => e.event),
      ['second-factor.failed', 'factor.added'],
    );
    assert.deepEqual(only(added, 'factor.added')[0]?.detail, { kind: 'totp', recovery_codes: true });
    server.clock.advance(30_000);
    const anonymous = await openSession(server);
    const loggedIn = await during(async () => {
      const first = await server.call('user-login', {
        session_token: anonymous,
        email: 'grace@example.org',
        password: GOOD_PASSWORD,
      });
      const ticket = first.success ? '' : ((first.response as { login_ticket?: string }).login_ticket ?? '');
      const step = { session_token: anonymous, login_ticket: ticket, method: 'totp' } as const;
      assert.equal((await server.call('user-login-secondfactor', { ...step, code: '000000' })).success, false);
      const code = totpCodeAt(secret, server.clock.now());
      assert.ok((await server.call('user-login-secondfactor', { ...step, code })).success);
    });
    assert.deepEqual(
      loggedIn.map((e) => e.event),
      ['login.second-factor-required', 'second-factor.failed', 'second-factor.used', 'login.succeeded'],
    );
    const admin = await openSession(server, 1);
    const managed = await during(async () => {
      assert.ok((await server.call('user-recoverycodes-new', { user_id: userId, session_token: session })).success);
      const removed = await server.call('user-factor-delete', {
        user_id: userId,
        session_token: session,
        factor_id: factorId,
      });
      assert.ok(removed.success);
      const superuser = { user_id: 1, user_role: 'superuser', session_token: admin };
      assert.ok((await server.call('user-factors-reset', { ...superuser, target_userid: userId })).success);
    });
    assert.deepEqual(
      managed.map((e) => e.event),
      ['recovery-codes.replaced', 'factor.removed', 'factors.reset'],
    );
    assert.deepEqual(only(managed, 'factor.removed')[0]?.detail, { kind: 'totp', factors_left: 0 });
  });

  it('records passkeys: added, a passwordless login, and a counter that did not grow', async () => {
    const userId = await verifiedUser(server, 'heidi@example.org');
    const session = await openSession(server, userId);
    const authenticator = new SoftAuthenticator();
    const options = async (body: Parameters<typeof server.call<'user-passkey-options'>>[1]) => {
      const reply = await server.call('user-passkey-options', body);
      assert.ok(reply.success, JSON.stringify(reply));
      return reply.response.options as never;
    };
    const added = await during(async () => {
      const made = authenticator.register(
        await options({ session_token: session, purpose: 'register', user_id: userId }),
        {
          origin: PASSKEY_ORIGIN,
        },
      );
      const body = { user_id: userId, session_token: session, name: 'laptop', response: made as never };
      assert.ok((await server.call('user-passkey-register', body)).success);
    });
    assert.deepEqual(
      added.map((e) => e.event),
      ['factor.added'],
    );
    assert.deepEqual(only(added, 'factor.added')[0]?.detail, { kind: 'passkey', recovery_codes: true });
    const pages = [await openSession(server), await openSession(server)];
    const login = async (counter?: number) => {
      const page = pages.shift() ?? '';
      const asked = await options({ session_token: page, purpose: 'login' });
      const response = authenticator.authenticate(asked, {
        origin: PASSKEY_ORIGIN,
        ...(counter === undefined ? {} : { counter }),
      });
      return server.call('user-login-passkey', { session_token: page, response: response as never });
    };
    const used = await during(async () => {
      assert.ok((await login()).success);
      assert.equal((await login(1)).success, false);
    });
    assert.deepEqual(
      used.map((e) => e.event),
      ['login.succeeded', 'passkey.counter-decreased', 'login.failed'],
    );
    assert.deepEqual(only(used, 'passkey.counter-decreased')[0]?.detail, {
      action: 'user-login-passkey',
      factor_id: (await server.call('user-factor-list', { user_id: userId, session_token: session })).response
        .factors?.[0]?.factor_id,
      stored: 1,
      presented: 1,
    });
  });

  it('has observed every event of the catalogue', () => {
    assert.deepEqual(
      auditEventNames.filter((name) => !seen.has(name)),
      [],
      'each catalogue event has a test that triggers it',
    );
  });
});

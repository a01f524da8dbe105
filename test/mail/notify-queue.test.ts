import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LogFields, Logger } from '../../src/log/logger.js';
import type { MailMessage, MailSettings } from '../../src/services/mail/mailer.js';
import { createNotifyQueue } from '../../src/services/mail/notify-queue.js';
import type { NotifyOutcome, NotifyQueue, NotifyQueueOptions } from '../../src/services/mail/notify-queue.js';
import { createSmtpMailer } from '../../src/services/mail/smtp.js';
import { securityMail } from '../../src/services/mail/templates.js';
import type { SecurityMailInput, SecurityMailKind } from '../../src/services/mail/templates.js';
import { FrozenClock } from '../helpers/clock.js';
import { until } from '../helpers/wait.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';
import { startSilentServer, startSink } from './smtp-sink.js';
import type { SmtpSink } from './smtp-sink.js';

const ADDRESS = 'jane@example.org';

/** Short timeouts: a server that does not answer fails a send within half a second. */
const mailerFor = (port: number, timeouts: MailSettings['timeouts'] = {}) =>
  createSmtpMailer({
    server: '127.0.0.1',
    port,
    user: '',
    pass: '',
    sender: 'Example <no-reply@example.org>',
    tlsCa: null,
    timeouts: { connectionMs: 500, greetingMs: 500, socketMs: 1_000, sendMs: 2_000, ...timeouts },
  });

const facts = (extra: Partial<SecurityMailInput> = {}): SecurityMailInput => ({
  to: ADDRESS,
  serverName: 'Example',
  baseUrl: 'https://app.example.org',
  time: '2026-11-23T10:00:00.000Z',
  ipAddress: '203.0.113.9',
  browser: 'Mozilla/5.0',
  ...extra,
});

const mail =
  (kind: SecurityMailKind, extra: Partial<SecurityMailInput> = {}) =>
  (): Promise<MailMessage> =>
    Promise.resolve(securityMail(kind, facts(extra)));

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

/** A queue whose log lines, outcomes and (through `events`) ordering the test reads. */
function harness(options: Omit<NotifyQueueOptions, 'clock' | 'log'> & { clock?: FrozenClock }) {
  const clock = options.clock ?? new FrozenClock(Date.parse('2026-11-23T10:00:00Z'));
  const lines: Line[] = [];
  const events: string[] = [];
  const outcomes: [NotifyOutcome, string][] = [];
  let onWarn: (line: Line) => void = () => undefined;
  const record =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      const line = { level, message, fields };
      lines.push(line);
      events.push(`${level} ${message}`);
      if (level === 'warn') onWarn(line);
    };
  const log: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const queue = createNotifyQueue({
    ...options,
    clock,
    log,
    onOutcome: (outcome, kind) => {
      outcomes.push([outcome, kind]);
      events.push(outcome);
    },
  });
  return {
    queue,
    clock,
    lines,
    events,
    outcomes,
    whenWarned: (hook: (line: Line) => void): void => {
      onWarn = hook;
    },
    /** No log line may hold the address: the queue logs the kind and the failure's class only. */
    assertNoAddress: (): void => {
      assert.ok(!JSON.stringify(lines).includes('jane@'), JSON.stringify(lines));
    },
  };
}

describe('the security-mail queue against a real SMTP server', () => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSink();
  });
  after(() => sink.close());

  it('delivers a queued mail', async () => {
    const { queue, outcomes } = harness({ mailer: mailerFor(sink.port) });
    const count = sink.received.length;
    assert.equal(queue.enqueue({ userId: 7, kind: 'password-changed' }, mail('password-changed')), true);
    await queue.idle();
    assert.equal(sink.received.length, count + 1);
    const received = sink.received.at(-1)!;
    assert.deepEqual(received.envelopeTo, [ADDRESS]);
    assert.equal(received.parsed.subject, '[Example] Your password was changed');
    assert.ok(received.parsed.text?.includes('The password of your account was changed.'));
    assert.deepEqual(outcomes, [['sent', 'password-changed']]);
    await queue.close();
  });

  it('throttles one mail per user and kind per throttleMs, by the clock, from the first mail composed', async () => {
    const { queue, clock, outcomes } = harness({ mailer: mailerFor(sink.port), throttleMs: 300_000 });
    const composed: string[] = [];
    const enqueue = (userId: number, kind: SecurityMailKind, send = true): boolean =>
      queue.enqueue({ userId, kind }, () => {
        composed.push(`${userId} ${kind}`);
        return Promise.resolve(send ? securityMail(kind, facts({ to: `user${userId}@example.org` })) : null);
      });
    const count = sink.received.length;
    assert.equal(enqueue(1, 'new-device', false), true, 'composes nothing (a known device)');
    assert.equal(enqueue(1, 'new-device'), true, 'so the window has not started');
    assert.equal(enqueue(1, 'password-changed'), true);
    assert.equal(enqueue(1, 'password-changed'), true, 'queued: its turn finds the window started');
    assert.equal(enqueue(1, 'factor-added'), true, 'another kind');
    assert.equal(enqueue(2, 'password-changed'), true, 'another user');
    await queue.idle();
    assert.equal(enqueue(1, 'password-changed'), false, 'within throttleMs: refused at once');
    clock.advance(299_999);
    assert.equal(enqueue(1, 'password-changed'), false, 'still within throttleMs');
    clock.advance(1);
    assert.equal(enqueue(1, 'password-changed'), true, 'throttleMs later');
    await queue.idle();
    assert.deepEqual(composed, [
      '1 new-device',
      '1 new-device',
      '1 password-changed',
      '1 password-changed',
      '1 factor-added',
      '2 password-changed',
      '1 password-changed',
    ]);
    assert.deepEqual(
      sink.received.slice(count).map((r) => [r.envelopeTo[0], r.parsed.subject]),
      [
        ['user1@example.org', '[Example] New login to your account'],
        ['user1@example.org', '[Example] Your password was changed'],
        ['user1@example.org', '[Example] A second factor was added to your account'],
        ['user2@example.org', '[Example] Your password was changed'],
        ['user1@example.org', '[Example] Your password was changed'],
      ],
    );
    assert.deepEqual(
      outcomes.map(([outcome]) => outcome),
      ['sent', 'sent', 'throttled', 'sent', 'sent', 'throttled', 'throttled', 'sent'],
    );
    await queue.close();
  });

  it('sends nothing when compose answers null, and retries a compose that threw', async () => {
    const { queue, lines, outcomes, assertNoAddress } = harness({ mailer: mailerFor(sink.port), retryDelaysMs: [20] });
    const connections = sink.connections();
    assert.equal(
      queue.enqueue({ userId: 1, kind: 'new-device' }, () => Promise.resolve(null)),
      true,
    );
    await queue.idle();
    assert.equal(sink.connections(), connections, 'no connection for a null mail');
    assert.deepEqual(outcomes, []);

    let calls = 0;
    queue.enqueue({ userId: 1, kind: 'apikey-created' }, () => {
      calls++;
      if (calls === 1) return Promise.reject(new Error(`database down while reading ${ADDRESS}`));
      return mail('apikey-created')();
    });
    await queue.idle();
    assert.equal(calls, 2);
    assert.equal(sink.received.at(-1)?.parsed.subject, '[Example] An API key was created for your account');
    assert.deepEqual(
      lines.map((l) => [l.message, l.fields]),
      [['security mail not sent', { kind: 'apikey-created', failure: 'compose_failed', attempt: 1 }]],
    );
    assert.deepEqual(outcomes, [
      ['failed', 'apikey-created'],
      ['sent', 'apikey-created'],
    ]);
    assertNoAddress();
    await queue.close();
  });

  it('prints a user agent with CR/LF and bidi characters on one line without them', async () => {
    const { queue } = harness({ mailer: mailerFor(sink.port) });
    const browser = 'Mozilla/5.0\r\nBcc: victim@example.org\r\n\r\nURGENT\u202E: call\u2028us\u200B now\u0085!';
    queue.enqueue({ userId: 1, kind: 'new-device' }, mail('new-device', { browser }));
    await queue.idle();
    const received = sink.received.at(-1)!;
    assert.deepEqual(received.envelopeTo, [ADDRESS]);
    const text = received.parsed.text ?? '';
    const line = text.split('\n').find((l) => l.startsWith('Browser: '));
    assert.equal(line, 'Browser: Mozilla/5.0 Bcc: victim@example.org URGENT: call us now !');
    assert.ok(!text.includes('\n\nURGENT'), text);
    const html = typeof received.parsed.html === 'string' ? received.parsed.html : '';
    assert.ok(html.includes('Browser: Mozilla/5.0 Bcc: victim@example.org URGENT: call us now !'), html);
    for (const body of [text, html]) assert.ok(!/[\r\u202E\u2028\u200B\u0085]/u.test(body));
    await queue.close();
  });
});

describe('the security-mail queue during an SMTP outage', () => {
  let sink: SmtpSink;
  let proxy: TcpProxy;
  before(async () => {
    sink = await startSink();
    proxy = await startTcpProxy(sink.host, sink.port);
  });
  after(async () => {
    await proxy.close();
    await sink.close();
  });

  it('returns from enqueue before composing or connecting, and sends one mail at a time', async () => {
    // Accepts TCP and never answers: each send waits for the greeting timeout (500 ms).
    const silent = await startSilentServer();
    try {
      const { queue, events } = harness({ mailer: mailerFor(silent.port), retryDelaysMs: [] });
      for (const userId of [1, 2]) {
        const queued = queue.enqueue({ userId, kind: 'locked' }, () => {
          events.push(`compose ${userId}`);
          return mail('locked')();
        });
        events.push(`enqueued ${queued}`);
      }
      assert.deepEqual(events, ['enqueued true', 'enqueued true'], 'nothing composed nor sent inside enqueue');
      await queue.idle();
      assert.deepEqual(events, [
        'enqueued true',
        'enqueued true',
        'compose 1',
        'warn security mail not sent',
        'failed',
        'warn security mail dropped',
        'dropped',
        'compose 2',
        'warn security mail not sent',
        'failed',
        'warn security mail dropped',
        'dropped',
      ]);
      await queue.close();
    } finally {
      await silent.close();
    }
  });

  it('retries while the port is closed and delivers once the server is back', async () => {
    proxy.refuse();
    const { queue, lines, outcomes, whenWarned, assertNoAddress } = harness({
      mailer: mailerFor(proxy.port),
      retryDelaysMs: [30, 30, 30],
    });
    // The server comes back once the first failure is logged (before the retry timer is even set).
    whenWarned(() => {
      if (proxy.mode === 'refuse') proxy.restore();
    });
    const count = sink.received.length;
    assert.equal(queue.enqueue({ userId: 3, kind: 'factor-removed' }, mail('factor-removed')), true);
    await queue.idle();
    assert.deepEqual(
      lines.map((l) => [l.message, l.fields]),
      [['security mail not sent', { kind: 'factor-removed', failure: 'smtp_unreachable', attempt: 1 }]],
    );
    assert.deepEqual(outcomes, [
      ['failed', 'factor-removed'],
      ['sent', 'factor-removed'],
    ]);
    assert.equal(sink.received.length, count + 1);
    assert.equal(sink.received.at(-1)?.parsed.subject, '[Example] A second factor was removed from your account');
    assertNoAddress();
    await queue.close();
  });

  it('drops the mail after the last retry, logged and counted', async () => {
    proxy.refuse();
    try {
      const { queue, lines, outcomes, assertNoAddress } = harness({
        mailer: mailerFor(proxy.port),
        retryDelaysMs: [10, 20],
      });
      queue.enqueue({ userId: 3, kind: 'password-reset' }, mail('password-reset'));
      await queue.idle();
      assert.deepEqual(
        lines.map((l) => [l.level, l.message, l.fields]),
        [
          ['warn', 'security mail not sent', { kind: 'password-reset', failure: 'smtp_unreachable', attempt: 1 }],
          ['warn', 'security mail not sent', { kind: 'password-reset', failure: 'smtp_unreachable', attempt: 2 }],
          ['warn', 'security mail not sent', { kind: 'password-reset', failure: 'smtp_unreachable', attempt: 3 }],
          ['warn', 'security mail dropped', { kind: 'password-reset', reason: 'attempts_exhausted' }],
        ],
      );
      assert.deepEqual(
        outcomes.map(([outcome]) => outcome),
        ['failed', 'failed', 'failed', 'dropped'],
      );
      assertNoAddress();
      await queue.close();
    } finally {
      proxy.restore();
    }
  });

  it('close() stops the retry timers and drops what waits for one', async () => {
    proxy.refuse();
    try {
      const { queue, lines, outcomes, whenWarned } = harness({
        mailer: mailerFor(proxy.port),
        retryDelaysMs: [600_000],
      });
      const failed = new Promise<void>((resolve) => whenWarned(() => resolve()));
      const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const before = timers();
      queue.enqueue({ userId: 3, kind: 'email-changed' }, mail('email-changed'));
      await failed;
      // The ten-minute retry is set, and unref()ed: it would not keep the process alive.
      assert.ok(timers() <= before, `${timers()} timers holding the process, ${before} before`);
      await queue.close();
      await queue.idle();
      assert.deepEqual(
        outcomes.map(([outcome]) => outcome),
        ['failed', 'dropped'],
      );
      assert.deepEqual(lines.at(-1)?.fields, { count: 1 });
      assert.equal(queue.enqueue({ userId: 4, kind: 'email-changed' }, mail('email-changed')), false, 'closed');
    } finally {
      proxy.restore();
    }
  });

  it('holds at most capacity mails and logs the drops once a minute at most', async () => {
    proxy.blackhole();
    try {
      const { queue, clock, lines, outcomes } = harness({
        mailer: mailerFor(proxy.port, { greetingMs: 10_000, socketMs: 10_000, sendMs: 20_000 }),
        capacity: 3,
        retryDelaysMs: [],
      });
      const composed: number[] = [];
      const enqueue = (userId: number): boolean =>
        queue.enqueue({ userId, kind: 'new-device' }, () => {
          composed.push(userId);
          return mail('new-device')();
        });
      // The first is being sent (to a server that never answers), two wait: the fourth finds the queue full.
      assert.deepEqual([1, 2, 3, 4].map(enqueue), [true, true, true, false]);
      assert.equal(enqueue(5), false);
      const full = (): (LogFields | undefined)[] =>
        lines.filter((l) => l.message === 'security mail dropped').map((l) => l.fields);
      assert.deepEqual(full(), [{ kind: 'new-device', reason: 'queue_full', capacity: 3, dropped: 1 }]);
      clock.advance(60_000);
      assert.equal(enqueue(6), false);
      assert.deepEqual(full().at(-1), { kind: 'new-device', reason: 'queue_full', capacity: 3, dropped: 2 });
      assert.deepEqual(outcomes, [
        ['dropped', 'new-device'],
        ['dropped', 'new-device'],
        ['dropped', 'new-device'],
      ]);
      await until('the first mail to be sent', () => composed.length === 1);
      // close() waits for the send in progress at most its budget, and says how many mails it leaves unsent.
      await queue.close(50);
      assert.equal(outcomes.length, 3, 'the send is still in progress');
      assert.deepEqual(lines.at(-1), {
        level: 'warn',
        message: 'security mails dropped at shutdown',
        fields: { count: 2 },
      });
      // Cutting the black hole fails that send; the two waiting mails are dropped at their turn, without a send.
      proxy.cut();
      await queue.idle();
      assert.deepEqual(
        outcomes.slice(3).map(([outcome]) => outcome),
        ['failed', 'dropped', 'dropped', 'dropped'],
      );
      assert.deepEqual(lines.at(-1)?.fields, { kind: 'new-device', reason: 'shutdown' });
      assert.deepEqual(composed, [1], 'the dropped mails were never composed');
    } finally {
      proxy.restore();
    }
  });

  it('reports outcomes through a callback that throws without breaking delivery', async () => {
    const queue: NotifyQueue = createNotifyQueue({
      mailer: mailerFor(proxy.port),
      clock: new FrozenClock(),
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      onOutcome: () => {
        throw new Error('metrics broken');
      },
    });
    const count = sink.received.length;
    assert.equal(queue.enqueue({ userId: 5, kind: 'locked' }, mail('locked')), true);
    await queue.idle();
    assert.equal(queue.enqueue({ userId: 5, kind: 'locked' }, mail('locked')), false, 'throttled, not thrown');
    assert.equal(sink.received.length, count + 1);
    await queue.close();
  });
});

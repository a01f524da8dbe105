/**
 * The logger: both formats, the levels, winston underneath, and what one turn of the event loop
 * writes. Lines go to real streams that record what they receive.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import TransportStream from 'winston-transport';
import { createLogger, memoisedHasher, piiHasher } from '../../src/log/logger.js';

/** A stream that keeps every chunk it is given. */
function recorder(): Writable & { chunks: string[]; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return Object.assign(stream, {
    chunks,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== ''),
  });
}

describe('the logger', () => {
  it('writes one JSON object a line: time, level, message, then the fields', async () => {
    const out = recorder();
    const log = createLogger(out, 'info', 'json');
    log.info('request', { method: 'POST', status: 200, ms: 0.42, nested: { a: [1, 2] } });
    log.warn('no fields');
    await log.flush();
    const [first, second] = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.match(String(first?.['timestamp']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      { ...first, timestamp: 't' },
      {
        timestamp: 't',
        level: 'info',
        message: 'request',
        method: 'POST',
        status: 200,
        ms: 0.42,
        nested: { a: [1, 2] },
      },
    );
    assert.deepEqual(Object.keys(second ?? {}), ['timestamp', 'level', 'message']);
    assert.equal(second?.['level'], 'warn');
  });

  it('never lets a field forge the level, the message or the time', async () => {
    const out = recorder();
    const log = createLogger(out, 'info', 'json');
    log.info('request', { level: 'error', message: 'forged', timestamp: 'yesterday', ok: true });
    await log.flush();
    const line = JSON.parse(out.lines()[0] ?? '') as Record<string, unknown>;
    assert.equal(line['level'], 'info');
    assert.equal(line['message'], 'request');
    assert.notEqual(line['timestamp'], 'yesterday');
    assert.deepEqual(
      [line['field_level'], line['field_message'], line['field_timestamp']],
      ['error', 'forged', 'yesterday'],
    );
  });

  it('logs what JSON.stringify refuses (a BigInt, a cycle) instead of throwing', async () => {
    const out = recorder();
    const log = createLogger(out, 'info', 'json');
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle['self'] = cycle;
    log.info('odd values', { big: 12345678901234567890n, cycle });
    await log.flush();
    const line = JSON.parse(out.lines()[0] ?? '') as Record<string, unknown>;
    assert.equal(line['big'], '12345678901234567890');
    assert.deepEqual(line['cycle'], { name: 'loop', self: '[Circular]' });
  });

  it('writes pretty lines for people: time, level, message, key=value (quoted when needed)', async () => {
    const out = recorder();
    const log = createLogger(out, 'info', 'pretty');
    log.info('listening', { url: 'http://127.0.0.1:13431/', workers: 2, note: 'two words', skipped: undefined });
    await log.flush();
    assert.match(
      out.lines()[0] ?? '',
      /^\d{4}-\d\d-\d\dT[\d:.]+Z info {2}listening url=http:\/\/127\.0\.0\.1:13431\/ workers=2 note="two words"$/,
    );
  });

  it('writes only the lines at or above its level', async () => {
    for (const [level, expected] of [
      ['error', ['error']],
      ['warn', ['error', 'warn']],
      ['info', ['error', 'warn', 'info']],
      ['debug', ['error', 'warn', 'info', 'debug']],
    ] as const) {
      const out = recorder();
      const log = createLogger(out, level, 'json');
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
      await log.flush();
      const levels = out.lines().map((l) => (JSON.parse(l) as { level: string }).level);
      assert.deepEqual(levels.sort(), [...expected].sort(), `loglevel ${level}`);
    }
  });

  it('writes the lines of one turn of the event loop in one write', async () => {
    const out = recorder();
    const log = createLogger(out, 'info', 'json');
    for (let i = 0; i < 50; i++) log.info('request', { i });
    assert.equal(out.chunks.length, 0, 'nothing is written synchronously');
    await setImmediate();
    assert.equal(out.chunks.length, 1);
    assert.equal(out.lines().length, 50);
    log.info('next turn');
    await setImmediate();
    assert.equal(out.chunks.length, 2);
  });

  it('is winston underneath: a transport added to it gets every entry, and the line is still written', async () => {
    const out = recorder();
    const log = createLogger(out, 'info', 'json');
    const seen: string[] = [];
    class Collect extends TransportStream {
      override log(entry: { message: string }, next: () => void): void {
        seen.push(entry.message);
        next();
      }
    }
    // winston declares its transports' type apart from winston-transport's class, which they all extend.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
    log.winston.add(new Collect());
    log.info('one');
    log.debug('below the level');
    log.warn('two');
    await log.flush();
    await setImmediate();
    assert.deepEqual(seen, ['one', 'two']);
    assert.deepEqual(
      out.lines().map((l) => (JSON.parse(l) as { message: string }).message),
      ['one', 'two'],
    );
  });
});

describe('PII digests', () => {
  it('are HMAC-SHA256 with the salt, 128 bits in hex, the same when remembered', () => {
    const pii = piiHasher('the-salt-1');
    const expected = createHmac('sha256', 'the-salt-1').update('192.0.2.7').digest('hex').slice(0, 32);
    assert.equal(pii('192.0.2.7'), expected);
    assert.equal(pii('192.0.2.7'), expected);
    assert.equal(pii(42), createHmac('sha256', 'the-salt-1').update('42').digest('hex').slice(0, 32));
    assert.notEqual(piiHasher('the-salt-2')('192.0.2.7'), expected);
  });

  it('stay right when the bounded memory forgets old values', () => {
    const pii = memoisedHasher('salt-salt', 3);
    const digest = (v: string): string => createHmac('sha256', 'salt-salt').update(v).digest('hex').slice(0, 32);
    const values = Array.from({ length: 20 }, (_, i) => `198.51.100.${i}`);
    for (let round = 0; round < 3; round++) for (const v of values) assert.equal(pii(v), digest(v));
  });
});

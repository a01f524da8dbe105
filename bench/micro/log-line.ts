/**
 * What one request log line costs, in this process (a hot loop: a lower bound of the cost in a loaded
 * server), against the winston set-up authsvc used before (a format chain of timestamp() and json(),
 * and a Stream transport writing each line at once), plus the client-IP digest, fresh and memoised.
 *   npx tsx bench/micro/log-line.ts [lines=200000]
 * Lines go to a stream that discards them, so the figures are the logging code's, not the pipe's.
 */
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, piiHasher } from '../../src/log/logger.js';

const lines = Number(process.argv[2] ?? 200_000);

const discard = (): Writable =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** The request line of a session-exists call, as request-log.ts and dispatch.ts build it. */
const fields = (i: number): Record<string, unknown> => ({
  method: 'POST',
  path: '/',
  status: 200,
  ms: 0.42,
  action: 'session-exists',
  reqid: i,
  ip: '5f0c1a2b3c4d5e6f708192a3b4c5d6e7',
  success: true,
});

function before(): (message: string, f: Record<string, unknown>) => void {
  const logger = winston.createLogger({
    level: 'info',
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- winston's own declarations
    transports: [new winston.transports.Stream({ stream: discard() })],
  });
  return (message, f) => logger.info(message, f);
}

function after(): (message: string, f: Record<string, unknown>) => void {
  const logger = createLogger(discard(), 'info', 'json');
  return (message, f) => logger.info(message, f);
}

async function perLine(name: string, log: (message: string, f: Record<string, unknown>) => void): Promise<number> {
  for (let i = 0; i < 20_000; i++) log('request', fields(i)); // warm-up
  await new Promise((resolve) => setImmediate(resolve));
  const started = process.hrtime.bigint();
  for (let i = 0; i < lines; i++) {
    log('request', fields(i));
    // The server logs a few lines per turn of the event loop, then its batches go out: do the same.
    if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
  const us = Number(process.hrtime.bigint() - started) / 1000 / lines;
  console.log(`${name.padEnd(44)} ${us.toFixed(2)} µs/line`);
  return us;
}

function perDigest(name: string, digest: (value: string) => string): number {
  const addresses = Array.from({ length: 50 }, (_, i) => `192.0.2.${i}`);
  const rounds = lines;
  const started = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < rounds; i++) sink += digest(addresses[i % addresses.length] ?? '').length;
  const us = Number(process.hrtime.bigint() - started) / 1000 / rounds;
  console.log(`${name.padEnd(44)} ${us.toFixed(2)} µs/digest${sink === 0 ? ' ' : ''}`);
  return us;
}

const old = await perLine('winston timestamp()+json(), Stream transport', before());
const lean = await perLine('authsvc logger (lean format, batched)', after());
const fresh = perDigest('client-IP digest, a fresh HMAC each', (value) =>
  createHmac('sha256', 'bench-salt').update(value).digest('hex').slice(0, 32),
);
const memo = perDigest('client-IP digest, memoised (piiHasher)', piiHasher('bench-salt'));
console.log(
  JSON.stringify({
    lines,
    line_us: { before: Number(old.toFixed(2)), after: Number(lean.toFixed(2)) },
    digest_us: { before: Number(fresh.toFixed(2)), after: Number(memo.toFixed(2)) },
  }),
);

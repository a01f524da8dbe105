/**
 * A start that fails for a reason outside the configuration is ONE line on standard error and exit
 * code 1: it names the database by its URL with the password as `***`, or the port; no stack trace
 * (unless loglevel is debug) and never the password; with two workers, still one line. The real
 * binary against closed ports, the real PostgreSQL and MariaDB with a wrong user, password or
 * database, and a port that is already taken.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateFernetKey } from '../../src/protocol/index.js';
import { parseDatabaseUrl } from '../../src/services/store/url.js';
import { serverUrl } from '../helpers/databases.js';
import { runAuthsvc } from './spawn.js';
import type { Finished } from './spawn.js';

const PASSWORD = 'Sup3r-s3cret-pw';
const dirs: string[] = [];
const servers: Server[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const server of servers) server.close();
});

function listenOnFreePort(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** A port where nothing listens: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = await listenOnFreePort();
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(env: Record<string, string>, args: string[] = []): Promise<Finished> {
  const basedir = mkdtempSync(join(tmpdir(), 'authsvc-startfail-'));
  dirs.push(basedir);
  return runAuthsvc(['--port=0', ...args], {
    cwd: basedir,
    env: {
      AUTHSVC_SECRET: generateFernetKey(),
      AUTHSVC_PIISALT: 'start-failure-salt',
      AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
      AUTHSVC_BASEDIR: basedir,
      AUTHSVC_ADMIN_PASSWORD: 'correct horse battery staple',
      ...env,
    },
  });
}

/** Exit 1, one line on standard error saying `expected`, no stack frame and no password anywhere. */
function assertOneLine(run: Finished, expected: RegExp | string): void {
  const all = `${run.stdout}${run.stderr}`;
  assert.equal(run.code, 1, all);
  const lines = run.stderr.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `one line on standard error:\n${run.stderr}`);
  const line = lines[0] ?? '';
  assert.match(line, /^authsvc: cannot start: /);
  if (typeof expected === 'string') assert.ok(line.includes(expected), `${line}\n  should name ${expected}`);
  else assert.match(line, expected);
  assert.doesNotMatch(all, /^\s+at /m, 'no stack frames');
  assert.ok(!all.includes(PASSWORD), 'never the password');
  assert.equal(all.split('cannot start').length - 1, 1, 'said once');
}

/** host:port of a test server URL, with the user and database given. */
function onServer(kind: 'pg' | 'mysql', user: string, password: string | null, database: string): string | null {
  const url = serverUrl(kind);
  if (url === null) return null;
  const parsed = parseDatabaseUrl(url, '.');
  if (!parsed.ok || parsed.target.dialect === 'sqlite') return null;
  const { host, port } = parsed.target;
  const scheme = kind === 'pg' ? 'postgresql' : 'mysql';
  return `${scheme}://${user}${password === null ? '' : `:${password}`}@${host}:${port}/${database}`;
}

describe('a start-up failure', () => {
  for (const workers of ['1', '2']) {
    it(`names a PostgreSQL that refuses connections by its redacted URL (--workers ${workers})`, async () => {
      const port = await closedPort();
      const run = await start({ AUTHSVC_AUTHDB: `postgresql://authsvc:${PASSWORD}@127.0.0.1:${port}/authsvc` }, [
        `--workers=${workers}`,
      ]);
      assertOneLine(run, `the database postgresql://authsvc:***@127.0.0.1:${port}/authsvc refused the connection`);
    });

    it(`names a MariaDB that refuses connections by its redacted URL (--workers ${workers})`, async () => {
      const port = await closedPort();
      const run = await start({ AUTHSVC_AUTHDB: `mysql://authsvc:${PASSWORD}@127.0.0.1:${port}/authsvc` }, [
        `--workers=${workers}`,
      ]);
      assertOneLine(run, `the database mysql://authsvc:***@127.0.0.1:${port}/authsvc refused the connection`);
    });

    it(`names the port that is already in use (--workers ${workers})`, async () => {
      const taken = await listenOnFreePort();
      servers.push(taken);
      const { port } = taken.address() as { port: number };
      const run = await start({}, [`--workers=${workers}`, `--port=${port}`]);
      assertOneLine(run, `port ${port} on 127.0.0.1 is already in use`);
    });
  }

  const pgUnknownDb = onServer('pg', 'postgres', PASSWORD, 'authsvc_no_such_database');
  it(
    'says a PostgreSQL database does not exist',
    { skip: pgUnknownDb === null && 'AUTHSVC_TEST_PGURL is not set' },
    async () => {
      const run = await start({ AUTHSVC_AUTHDB: pgUnknownDb ?? '' });
      assertOneLine(run, /postgresql:\/\/postgres:\*\*\*@[^ ]+\/authsvc_no_such_database does not exist/);
    },
  );

  const pgUnknownUser = onServer('pg', 'authsvc_no_such_user', PASSWORD, 'test');
  it(
    'says PostgreSQL refused the login of an unknown user',
    { skip: pgUnknownUser === null && 'AUTHSVC_TEST_PGURL is not set' },
    async () => {
      const run = await start({ AUTHSVC_AUTHDB: pgUnknownUser ?? '' }, ['--workers=2']);
      assertOneLine(run, /postgresql:\/\/authsvc_no_such_user:\*\*\*@[^ ]+\/test refused the login/);
    },
  );

  const mysqlWrongPassword = onServer('mysql', 'root', PASSWORD, 'test');
  it(
    'says MariaDB refused the user name or password',
    { skip: mysqlWrongPassword === null && 'AUTHSVC_TEST_MYSQLURL is not set' },
    async () => {
      const run = await start({ AUTHSVC_AUTHDB: mysqlWrongPassword ?? '' }, ['--workers=2']);
      assertOneLine(run, /mysql:\/\/root:\*\*\*@[^ ]+\/test refused the user name or password/);
    },
  );

  const mysqlUnknownDb = onServer('mysql', 'root', null, 'authsvc_no_such_database');
  it(
    'says a MariaDB database does not exist',
    { skip: mysqlUnknownDb === null && 'AUTHSVC_TEST_MYSQLURL is not set' },
    async () => {
      const run = await start({ AUTHSVC_AUTHDB: mysqlUnknownDb ?? '' });
      assertOneLine(run, /mysql:\/\/root@[^ ]+\/authsvc_no_such_database does not exist/);
    },
  );

  it('says the TLS certificate cannot be used', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'authsvc-badpem-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'cert.pem'), 'not a certificate\n');
    const run = await start({}, [`--tlscertfile=${join(dir, 'cert.pem')}`, `--tlscertkey=${join(dir, 'cert.pem')}`]);
    assertOneLine(run, 'the TLS certificate or key (tlscertfile, tlscertkey) cannot be used');
  });

  it('shows the stack with loglevel debug, still without the password', async () => {
    const port = await closedPort();
    const run = await start({
      AUTHSVC_AUTHDB: `postgresql://authsvc:${PASSWORD}@127.0.0.1:${port}/authsvc`,
      AUTHSVC_LOGLEVEL: 'debug',
    });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^authsvc: cannot start: the database postgresql:\/\/authsvc:\*\*\*@127\.0\.0\.1:\d+\/authsvc refused/,
    );
    assert.match(run.stderr, /ECONNREFUSED[\s\S]*\n\s+at /, 'the stack follows the line');
    assert.ok(!`${run.stdout}${run.stderr}`.includes(PASSWORD));
  });

  it('keeps exit code 2 and the list of every problem for configuration errors', async () => {
    const run = await start({ AUTHSVC_LOGLEVEL: 'chatty', AUTHSVC_AUTHDB: 'nosuch://x' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^authsvc: cannot start:\n/);
    assert.match(run.stderr, /^ {2}- loglevel .* must be one of error, warn, info, debug, not "chatty"$/m);
    assert.match(run.stderr, /authdb/);
  });
});

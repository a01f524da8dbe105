import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CREDENTIALS_FILE } from '../../src/setup/credentials.js';
import { parseDatabaseUrl } from '../../src/services/store/url.js';
import { startTestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-store-'));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('SQLite storage', () => {
  it('creates the database file with mode 0600 and the fixed accounts 1, 2 and 3', async () => {
    const basedir = tempDir();
    const server = await startTestServer({ basedir });
    try {
      assert.equal(statSync(join(basedir, 'authsvc.sqlite')).mode & 0o777, 0o600);
      const users = await sqlOf(server.app.store)('users')
        .select('user_id', 'email', 'user_role', 'is_active', 'email_verified')
        .orderBy('user_id');
      assert.deepEqual(
        users.map((u: Record<string, unknown>) => [
          u['user_id'],
          u['email'],
          u['user_role'],
          Boolean(u['is_active']),
          Boolean(u['email_verified']),
        ]),
        [
          [1, 'admin@example.org', 'superuser', true, true],
          [2, 'anonuser@localhost', 'anonymous', true, true],
          [3, 'dummyuser@localhost', 'locked', false, false],
        ],
      );
      const journal: unknown = await sqlOf(server.app.store).raw('PRAGMA journal_mode');
      assert.deepEqual(journal, [{ journal_mode: 'wal' }]);
      const fk: unknown = await sqlOf(server.app.store).raw('PRAGMA foreign_keys');
      assert.deepEqual(fk, [{ foreign_keys: 1 }]);
    } finally {
      await server.close();
    }
  });

  it('stores times as integer milliseconds from the injected clock', async () => {
    const server = await startTestServer();
    try {
      const row: { created_on?: unknown } = await sqlOf(server.app.store)('users')
        .where('user_id', 1)
        .first('created_on');
      assert.equal(row.created_on, server.clock.now());
    } finally {
      await server.close();
    }
  });

  it('writes generated admin credentials to .authsvc-admin-credentials with mode 0400', async () => {
    const basedir = tempDir();
    const server = await startTestServer({ basedir, config: { admin: {} } });
    try {
      const path = join(basedir, CREDENTIALS_FILE);
      assert.equal(server.app.credentialsFile, path);
      assert.equal(statSync(path).mode & 0o777, 0o400);
      const [email, password, ...rest] = readFileSync(path, 'utf8').trim().split(' ');
      assert.match(email ?? '', /^[a-z0-9._-]+@localhost$/);
      assert.ok((password ?? '').length >= 20);
      assert.deepEqual(rest, []);
      const stored: { email: string; password: string } = await sqlOf(server.app.store)('users')
        .where('user_id', 1)
        .first('email', 'password');
      assert.equal(stored.email, email);
      assert.match(stored.password, /^\$argon2id\$/);
      assert.ok(!stored.password.includes(password ?? '-'), 'the password is stored only as a hash');
    } finally {
      await server.close();
    }
  });

  it('writes no credentials file when the password was given', async () => {
    const basedir = tempDir();
    const server = await startTestServer({ basedir });
    try {
      assert.equal(server.app.credentialsFile, null);
      assert.throws(() => statSync(join(basedir, CREDENTIALS_FILE)));
    } finally {
      await server.close();
    }
  });

  it('keeps everything on a second start: tables exist already, accounts are not re-created', async () => {
    const basedir = tempDir();
    const first = await startTestServer({ basedir, config: { admin: {} } });
    const opened = await first.call('session-new', {
      ip_address: '192.0.2.1',
      user_agent: 'ua',
      user_id: 1,
      expires: 1,
      extra_info_json: {},
    });
    assert.ok(opened.success);
    const before = await first.digest();
    await first.close();

    const second = await startTestServer({
      basedir,
      clock: first.clock,
      config: { admin: { email: 'other@example.org' } },
    });
    try {
      assert.equal(await second.digest(), before);
      assert.equal(second.app.credentialsFile, null);
      const session = await second.call('session-exists', { session_token: opened.response.session_token });
      assert.equal(session.success, true);
    } finally {
      await second.close();
    }
  });

  it('gives the first new row the id 4', async () => {
    const server = await startTestServer();
    try {
      const [id] = await sqlOf(server.app.store)('users').insert({
        system_id: 's4',
        email: 'four@example.org',
        password: 'x',
        email_verified: false,
        is_active: false,
        user_role: 'locked',
        created_on: 0,
        last_updated: 0,
      });
      assert.equal(id, 4);
    } finally {
      await server.close();
    }
  });
});

describe('database URLs', () => {
  it('reads SQLAlchemy SQLite forms, relative to basedir', () => {
    assert.deepEqual(parseDatabaseUrl('sqlite:///auth.db', '/srv/a'), {
      ok: true,
      target: { dialect: 'sqlite', filename: '/srv/a/auth.db' },
    });
    assert.deepEqual(parseDatabaseUrl('sqlite:////var/lib/auth.db', '/srv/a'), {
      ok: true,
      target: { dialect: 'sqlite', filename: '/var/lib/auth.db' },
    });
    assert.deepEqual(parseDatabaseUrl('sqlite+pysqlite:///x/y.db', '/b'), {
      ok: true,
      target: { dialect: 'sqlite', filename: '/b/x/y.db' },
    });
  });
  it('refuses what it cannot open, saying why', () => {
    for (const url of ['', 'auth.db', 'sqlite://', 'sqlite:///', 'sqlite:///:memory:', 'sqlite+pysqlcipher:///x.db']) {
      const parsed = parseDatabaseUrl(url, '/b');
      assert.equal(parsed.ok, false, url);
    }
  });
});

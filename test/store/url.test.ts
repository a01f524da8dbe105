import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { describeTarget, parseDatabaseUrl, redactUrl } from '../../src/services/store/url.js';
import type { DatabaseTarget } from '../../src/services/store/url.js';

const parse = (url: string): DatabaseTarget => {
  const parsed = parseDatabaseUrl(url, '/srv/auth');
  if (!parsed.ok) throw new Error(`${url}: ${parsed.problem}`);
  return parsed.target;
};
const problem = (url: string): string => {
  const parsed = parseDatabaseUrl(url, '/srv/auth');
  assert.equal(parsed.ok, false, url);
  return parsed.ok ? '' : parsed.problem;
};

describe('PostgreSQL URLs', () => {
  it('reads the plain and SQLAlchemy forms alike', () => {
    const expected = {
      dialect: 'pg',
      flavour: 'postgresql',
      host: 'db.example.org',
      port: 5433,
      socketPath: null,
      user: 'auth',
      password: 's3cret',
      database: 'authdb',
      connectTimeoutMs: 2000,
      tls: { mode: 'off' },
      applicationName: 'authsvc',
    };
    for (const scheme of ['postgresql', 'postgres', 'postgresql+psycopg2', 'postgresql+asyncpg', 'POSTGRESQL+PG8000']) {
      assert.deepEqual(parse(`${scheme}://auth:s3cret@db.example.org:5433/authdb`), expected, scheme);
    }
  });

  it('defaults the port, takes IPv6 hosts in brackets and a missing password', () => {
    const target = parse('postgresql://postgres@[::1]/test');
    assert.equal(target.dialect === 'pg' && target.host, '::1');
    assert.equal(target.dialect === 'pg' && target.port, 5432);
    assert.equal(target.dialect === 'pg' && target.password, null);
    assert.equal(describeTarget(target), 'postgresql postgres@[::1]:5432/test');
  });

  it('percent-decodes credentials and the database name', () => {
    const target = parse('postgresql://us%40er:p%40ss%3Aw%2Fo%25rd@h/my%20db');
    assert.deepEqual(target.dialect === 'pg' ? [target.user, target.password, target.database] : [], [
      'us@er',
      'p@ss:w/o%rd',
      'my db',
    ]);
  });

  it('maps sslmode, sslrootcert, connect_timeout, application_name and a socket directory', () => {
    const tls = (q: string) => {
      const t = parse(`postgresql://u@h/db?${q}`);
      return t.dialect === 'pg' ? t.tls : null;
    };
    assert.deepEqual(tls('sslmode=disable'), { mode: 'off' });
    assert.deepEqual(tls('sslmode=prefer'), { mode: 'off' });
    assert.deepEqual(tls('sslmode=require'), { mode: 'on', verify: 'none', caFile: null });
    assert.deepEqual(tls('sslmode=verify-ca&sslrootcert=ca.pem'), {
      mode: 'on',
      verify: 'ca',
      caFile: '/srv/auth/ca.pem',
    });
    assert.deepEqual(tls('sslmode=verify-full'), { mode: 'on', verify: 'full', caFile: null });
    const t = parse('postgresql://u@/db?host=/var/run/postgresql&connect_timeout=1.5&application_name=x');
    assert.equal(t.dialect === 'pg' && t.socketPath, '/var/run/postgresql');
    assert.equal(t.dialect === 'pg' && t.connectTimeoutMs, 1500);
    assert.equal(t.dialect === 'pg' && t.applicationName, 'x');
  });
});

describe('MariaDB and MySQL URLs', () => {
  it('reads mysql, mariadb and their SQLAlchemy driver forms', () => {
    for (const [url, flavour] of [
      ['mysql://root@127.0.0.1:3306/test', 'mysql'],
      ['mysql+pymysql://root@127.0.0.1:3306/test?charset=utf8mb4', 'mysql'],
      ['mysql+mysqldb://root@127.0.0.1/test', 'mysql'],
      ['mariadb://root@127.0.0.1/test', 'mariadb'],
      ['mariadb+mariadbconnector://root@127.0.0.1:3306/test', 'mariadb'],
    ] as const) {
      const target = parse(url);
      assert.equal(target.dialect, 'mysql', url);
      assert.equal(target.dialect === 'mysql' && target.flavour, flavour, url);
      assert.equal(target.dialect === 'mysql' && target.port, 3306, url);
      assert.equal(target.dialect === 'mysql' && target.database, 'test', url);
    }
  });

  it('maps ssl_mode, ssl_ca and unix_socket', () => {
    const t = parse('mysql://u:p@h/db?ssl_mode=VERIFY_IDENTITY&ssl_ca=/etc/ca.pem');
    assert.deepEqual(t.dialect === 'mysql' && t.tls, { mode: 'on', verify: 'full', caFile: '/etc/ca.pem' });
    const s = parse('mariadb://u@/db?unix_socket=/run/mysqld/mysqld.sock');
    assert.equal(s.dialect === 'mysql' && s.socketPath, '/run/mysqld/mysqld.sock');
  });
});

describe('refusals', () => {
  it('says why it cannot use a URL', () => {
    assert.match(problem('oracle://u@h/db'), /unknown scheme "oracle"/);
    assert.match(problem('postgresql+psycopg3000://u@h/db'), /driver "psycopg3000"/);
    assert.match(problem('mysql+asyncpg://u@h/db'), /driver "asyncpg"/);
    assert.match(problem('postgresql://u@h'), /database name/);
    assert.match(problem('postgresql://u@h/'), /database name/);
    assert.match(problem('postgresql://u@/db'), /needs a host/);
    assert.match(problem('postgresql://u@h:99999/db'), /port/);
    assert.match(problem('postgresql://u@h:5432:1/db'), /malformed host/);
    assert.match(problem('postgresql://u@h/db?sslmode=sometimes'), /sslmode=sometimes/);
    assert.match(problem('postgresql://u@h/db?pool_size=5'), /query parameter "pool_size"/);
    assert.match(problem('postgresql://u@h/db?connect_timeout=0'), /connect_timeout/);
    assert.match(problem('postgresql://u@h/db?sslrootcert=/ca.pem'), /TLS is off/);
    assert.match(problem('mysql://u@h/db?charset=latin1'), /utf8mb4/);
    assert.match(problem('mysql://u:%zz@h/db'), /percent-encoded/);
    assert.match(problem('mysql:u@h/db'), /must look like/);
    assert.match(problem('http://example.org/'), /unknown scheme/);
  });

  it('never shows the password in logs', () => {
    assert.equal(redactUrl('postgresql://u:hunter2@h/db'), 'postgresql://u:***@h/db');
    assert.equal(redactUrl('mysql://u@h/db?password=hunter2'), 'mysql://u@h/db?password=***');
  });
});

describe('round trip', () => {
  it('reads back any user, password and database name it was given, percent-encoded', () => {
    const text = fc.string({ minLength: 1, maxLength: 30, unit: 'binary' }).filter((s) => {
      try {
        encodeURIComponent(s); // refuses lone surrogates
        return true;
      } catch {
        return false;
      }
    });
    fc.assert(
      fc.property(text, text, text, fc.integer({ min: 1, max: 65_535 }), (user, password, database, port) => {
        const url = `postgresql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@h:${port}/${encodeURIComponent(database)}`;
        const parsed = parseDatabaseUrl(url, '/b');
        if (database.includes('/')) return !parsed.ok;
        return (
          parsed.ok &&
          parsed.target.dialect === 'pg' &&
          parsed.target.user === user &&
          parsed.target.password === password &&
          parsed.target.database === database &&
          parsed.target.port === port
        );
      }),
    );
  });
});

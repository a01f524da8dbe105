import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfVars } from '../../src/config/confvars.js';
import { loadConfig } from '../../src/config/load.js';
import { PKG_DIR, SHIPPED_CONFVARS } from '../../src/config/paths.js';
import { generateFernetKey } from '../../src/protocol/index.js';

const confvars = loadConfVars(SHIPPED_CONFVARS);
const dir = mkdtempSync(join(tmpdir(), 'authsvc-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const key = generateFernetKey();
const required = { AUTHSVC_SECRET: key, AUTHSVC_PIISALT: 'pepper-pepper', AUTHSVC_AUTHDB: 'sqlite:///a.sqlite' };

function load(env: Record<string, string>, argv: string[] = []) {
  return loadConfig(argv, { AUTHSVC_BASEDIR: dir, ...env }, confvars);
}

function loaded(env: Record<string, string>, argv: string[] = []) {
  const result = load(env, argv);
  assert.ok(result.ok, result.ok ? '' : result.problems.join('; '));
  return result.config;
}

describe('configuration', () => {
  it('refuses to start without the secret, the PII salt and the database URL, naming all three', () => {
    const result = load({});
    assert.equal(result.ok, false);
    const problems = result.ok ? [] : result.problems;
    assert.equal(problems.length, 3);
    assert.match(problems[0] ?? '', /^secret \(--secret, AUTHSVC_SECRET, AUTHSVC_SECRETKEY\) is required$/);
    assert.match(problems[1] ?? '', /^piisalt .* is required$/);
    assert.match(problems[2] ?? '', /^authdb .* is required$/);
  });

  it('takes every item from the environment or the command line, the environment first', () => {
    const fromArgs = loaded({}, [
      `--secret=${key}`,
      '--piisalt',
      'pepper-pepper',
      '--authdb=sqlite:///b.sqlite',
      '--port=9000',
    ]);
    assert.equal(fromArgs.port, 9000);
    assert.deepEqual(fromArgs.authdb, { dialect: 'sqlite', filename: join(dir, 'b.sqlite') });
    const both = loaded({ ...required, AUTHSVC_PORT: '7000' }, ['--port=9000']);
    assert.equal(both.port, 7000);
  });

  it('has the documented defaults', () => {
    const config = loaded(required);
    assert.equal(config.listen, '127.0.0.1');
    assert.equal(config.port, 13431);
    assert.deepEqual(config.allowedHosts, ['localhost', '127.0.0.1']);
    assert.equal(config.debugmode, false);
    assert.equal(config.sessionExpiryDays, 30);
    assert.equal(config.messageTtlSeconds, 120);
    assert.equal(config.maxBodySize, 1_048_576);
    assert.equal(config.workers, 4);
    assert.equal(config.permissionsPath, join(PKG_DIR, 'policy', 'default.json'));
    assert.deepEqual([...config.policy.roles].sort(), ['anonymous', 'authenticated', 'locked', 'staff', 'superuser']);
  });

  it('takes the number of worker processes from --workers or AUTHSVC_WORKERS, from 1 to 64', () => {
    assert.equal(loaded(required, ['--workers=1']).workers, 1);
    assert.equal(loaded({ ...required, AUTHSVC_WORKERS: '2' }).workers, 2);
    for (const bad of ['0', '65', 'many', '1.5']) {
      const result = load({ ...required, AUTHSVC_WORKERS: bad });
      assert.equal(result.ok, false, bad);
      assert.match(
        result.ok ? '' : (result.problems[0] ?? ''),
        /^workers \(--workers, AUTHSVC_WORKERS\) must be an integer/,
      );
    }
  });

  it('reads PostgreSQL and MariaDB URLs, and refuses unknown schemes with the reason', () => {
    const pg = loaded({
      ...required,
      AUTHSVC_AUTHDB: 'postgresql+psycopg2://auth:p%40ss@db:5432/auth?sslmode=require',
    });
    assert.equal(pg.authdb.dialect, 'pg');
    const maria = loaded({ ...required, AUTHSVC_AUTHDB: 'mariadb+pymysql://auth@db/auth' });
    assert.equal(maria.authdb.dialect, 'mysql');
    const bad = load({ ...required, AUTHSVC_AUTHDB: 'mssql+pyodbc://u@h/db' });
    assert.match(bad.ok ? '' : (bad.problems[0] ?? ''), /^authdb .* has an unknown scheme "mssql"/);
  });

  it('accepts both AUTHSVC_SECRET and AUTHSVC_SECRETKEY', () => {
    const { AUTHSVC_SECRET: _unused, ...rest } = required;
    assert.ok(loaded({ ...rest, AUTHSVC_SECRETKEY: key }).keyring);
  });

  it('reads PORT before AUTHSVC_PORT', () => {
    assert.equal(loaded({ ...required, PORT: '8080', AUTHSVC_PORT: '9090' }).port, 8080);
    assert.equal(loaded({ ...required, AUTHSVC_PORT: '9090' }).port, 9090);
  });

  it('reads the secret and the salt from files (relative to basedir or absolute)', () => {
    writeFileSync(join(dir, 'secret-key'), `${key}\n`, { mode: 0o400 });
    writeFileSync(join(dir, 'salt'), 'file-salt-value\n');
    const config = loaded({ ...required, AUTHSVC_SECRET: 'secret-key', AUTHSVC_PIISALT: join(dir, 'salt') });
    assert.equal(config.piisalt, 'file-salt-value');
    assert.equal(config.keyring.keys.length, 1);
  });

  it('takes a list of keys for rotation', () => {
    const config = loaded({ ...required, AUTHSVC_SECRET: `${generateFernetKey()};${key}` });
    assert.equal(config.keyring.keys.length, 2);
  });

  it('lists every invalid item at once', () => {
    const result = load(
      {
        AUTHSVC_SECRET: 'not-a-key',
        AUTHSVC_PIISALT: 'short',
        AUTHSVC_AUTHDB: 'oracle://db',
        AUTHSVC_PORT: '70000',
        AUTHSVC_SESSIONEXPIRY: 'soon',
        AUTHSVC_DEBUGMODE: '2',
        AUTHSVC_LISTEN: 'everywhere',
        AUTHSVC_ALLOWEDHOSTS: ';;',
        AUTHSVC_PERMISSIONS: join(dir, 'missing.json'),
      },
      ['--no-such-option=1', 'stray'],
    );
    assert.equal(result.ok, false);
    const text = result.ok ? '' : result.problems.join('\n');
    for (const fragment of [
      'unexpected argument "stray"',
      'unknown option --no-such-option',
      'secret',
      'piisalt',
      'authdb',
      'port',
      'sessionexpiry',
      'debugmode',
      'listen',
      'allowedhosts',
      'permissions',
    ]) {
      assert.ok(text.includes(fragment), `mentions ${fragment}:\n${text}`);
    }
  });

  it('refuses a policy without the required roles', () => {
    const path = join(dir, 'policy.json');
    writeFileSync(path, JSON.stringify({ roles: ['superuser', 'anonymous'] }));
    const result = load({ ...required, AUTHSVC_PERMISSIONS: path });
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : (result.problems[0] ?? ''), /lacks the required roles: authenticated, locked/);
  });
});

describe('the authsvc command', () => {
  it('exits with code 2 and one message listing every missing item', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'main.ts')],
      {
        cwd: dir,
        env: { PATH: process.env['PATH'] ?? '' },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^authsvc: cannot start:\n {2}- secret .*\n {2}- piisalt .*\n {2}- authdb .*\n$/);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadStartup } from '../../src/setup/startup.js';
import { readInputs } from '../../src/config/inputs.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { tempDir } from '../helpers/temp.js';
import { childEnv } from '../helpers/child-env.js';

const dir = tempDir('config');

const key = generateFernetKey();
const required = { AUTHSVC_SECRET: key, AUTHSVC_PIISALT: 'pepper-pepper', AUTHSVC_AUTHDB: 'sqlite:///a.sqlite' };

/** As start-up does: the configuration and the policy it names, every problem of both at once. */
function load(env: Record<string, string>, argv: string[] = []) {
  return loadStartup(readInputs(argv, { AUTHSVC_BASEDIR: dir, ...env }));
}

async function started(env: Record<string, string>, argv: string[] = []) {
  const result = await load(env, argv);
  assert.ok(result.ok, result.ok ? '' : result.problems.join('; '));
  return result;
}

async function loaded(env: Record<string, string>, argv: string[] = []) {
  return (await started(env, argv)).config;
}

describe('configuration', () => {
  it('refuses to start without the secret, the PII salt and the database URL, naming all three', async () => {
    const result = await load({});
    assert.equal(result.ok, false);
    const problems = result.ok ? [] : result.problems;
    assert.equal(problems.length, 3);
    assert.match(problems[0] ?? '', /^secret \(--secret, AUTHSVC_SECRET, AUTHSVC_SECRETKEY\) is required$/);
    assert.match(problems[1] ?? '', /^piisalt .* is required$/);
    assert.match(problems[2] ?? '', /^authdb .* is required$/);
  });

  it('takes every item from the environment or the command line, the environment first', async () => {
    const fromArgs = await loaded({}, [
      `--secret=${key}`,
      '--piisalt',
      'pepper-pepper',
      '--authdb=sqlite:///b.sqlite',
      '--port=9000',
    ]);
    assert.equal(fromArgs.port, 9000);
    assert.deepEqual(fromArgs.authdb, { dialect: 'sqlite', filename: join(dir, 'b.sqlite') });
    const both = await loaded({ ...required, AUTHSVC_PORT: '7000' }, ['--port=9000']);
    assert.equal(both.port, 7000);
  });

  it('has the documented defaults', async () => {
    const { config, policy } = await started(required);
    assert.equal(config.listen, '127.0.0.1');
    assert.equal(config.port, 13431);
    assert.deepEqual(config.allowedHosts, ['localhost', '127.0.0.1']);
    assert.equal(config.debugmode, false);
    assert.equal(config.sessionExpiryDays, 30);
    assert.equal(config.messageTtlSeconds, 120);
    assert.equal(config.maxBodySize, 1_048_576);
    // The spec's 4, capped at the CPUs when no source names the number (docs/design.md#worker-processes).
    assert.equal(config.workers, Math.min(4, availableParallelism()));
    assert.equal(config.permissionsPath, join(PKG_DIR, 'policy', 'default.json'));
    assert.deepEqual([...policy.roles].sort(), ['anonymous', 'authenticated', 'locked', 'staff', 'superuser']);
  });

  it('takes the number of worker processes from --workers or AUTHSVC_WORKERS, from 1 to 64', async () => {
    assert.equal((await loaded(required, ['--workers=1'])).workers, 1);
    assert.equal((await loaded(required, ['--workers=4'])).workers, 4, 'a number given is kept, above the CPUs too');
    assert.equal((await loaded({ ...required, AUTHSVC_WORKERS: '2' })).workers, 2);
    for (const bad of ['0', '65', 'many', '1.5']) {
      const result = await load({ ...required, AUTHSVC_WORKERS: bad });
      assert.equal(result.ok, false, bad);
      assert.match(
        result.ok ? '' : (result.problems[0] ?? ''),
        /^workers \(--workers, AUTHSVC_WORKERS\) must be an integer/,
      );
    }
  });

  it('reads PostgreSQL and MariaDB URLs, and refuses unknown schemes with the reason', async () => {
    const pg = await loaded({
      ...required,
      AUTHSVC_AUTHDB: 'postgresql+psycopg2://auth:p%40ss@db:5432/auth?sslmode=require',
    });
    assert.equal(pg.authdb.dialect, 'pg');
    const maria = await loaded({ ...required, AUTHSVC_AUTHDB: 'mariadb+pymysql://auth@db/auth' });
    assert.equal(maria.authdb.dialect, 'mysql');
    const bad = await load({ ...required, AUTHSVC_AUTHDB: 'mssql+pyodbc://u@h/db' });
    assert.match(bad.ok ? '' : (bad.problems[0] ?? ''), /^authdb .* has an unknown scheme "mssql"/);
  });

  it('accepts both AUTHSVC_SECRET and AUTHSVC_SECRETKEY', async () => {
    const { AUTHSVC_SECRET: _unused, ...rest } = required;
    assert.ok((await loaded({ ...rest, AUTHSVC_SECRETKEY: key })).keyring);
  });

  it('reads PORT before AUTHSVC_PORT', async () => {
    assert.equal((await loaded({ ...required, PORT: '8080', AUTHSVC_PORT: '9090' })).port, 8080);
    assert.equal((await loaded({ ...required, AUTHSVC_PORT: '9090' })).port, 9090);
  });

  it('reads the secret and the salt from files (relative to basedir or absolute)', async () => {
    writeFileSync(join(dir, 'secret-key'), `${key}\n`, { mode: 0o400 });
    writeFileSync(join(dir, 'salt'), 'file-salt-value\n');
    const config = await loaded({ ...required, AUTHSVC_SECRET: 'secret-key', AUTHSVC_PIISALT: join(dir, 'salt') });
    assert.equal(config.piisalt, 'file-salt-value');
    assert.equal(config.keyring.keys.length, 1);
  });

  it('takes a list of keys for rotation', async () => {
    const config = await loaded({ ...required, AUTHSVC_SECRET: `${generateFernetKey()};${key}` });
    assert.equal(config.keyring.keys.length, 2);
  });

  it('lists every invalid item at once', async () => {
    const result = await load(
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

  it('refuses a policy without the required roles', async () => {
    const path = join(dir, 'policy.json');
    const policy = JSON.parse(readFileSync(join(PKG_DIR, 'policy', 'default.json'), 'utf8')) as { roles: string[] };
    policy.roles = policy.roles.filter((role) => role !== 'authenticated' && role !== 'locked');
    writeFileSync(path, JSON.stringify(policy));
    const result = await load({ ...required, AUTHSVC_PERMISSIONS: path });
    assert.equal(result.ok, false);
    const problems = result.ok ? [] : result.problems;
    assert.ok(
      problems.some((p) => /policy\.json:1:\d+: \/roles: lacks the required roles: authenticated, locked \(/.test(p)),
      problems.join('\n'),
    );
  });
});

describe('the authsvc command', () => {
  it('exits with code 2 and one message listing every missing item', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'bin.ts')],
      {
        cwd: dir,
        env: childEnv(),
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^authsvc: cannot start:\n {2}- secret .*\n {2}- piisalt .*\n {2}- authdb .*\n$/);
  });
});

describe('structured items', () => {
  it('refuses bad password, hash, rate-limit, TLS, worker and URL settings, all at once', async () => {
    const result = await load({
      ...required,
      AUTHSVC_PASSPOLICY: 'min_pass_length:3;shortest:1',
      AUTHSVC_PASSHASH: 'md5:1',
      AUTHSVC_RATELIMITS: 'ipaddr:many',
      AUTHSVC_TLSCERTFILE: join(dir, 'cert.pem'),
      AUTHSVC_WORKERS: '0',
      AUTHSVC_PWNEDURL: 'ftp://example.org',
      AUTHSVC_USERLOCKTRIES: '0',
      AUTHSVC_EMAILPORT: '99999',
    });
    assert.equal(result.ok, false);
    const text = result.ok ? '' : result.problems.join('\n');
    for (const fragment of [
      'passpolicy',
      'passhash',
      'ratelimits',
      'tlscertfile',
      'workers',
      'pwnedurl',
      'userlocktries',
      'emailport',
    ]) {
      assert.ok(text.includes(fragment), `mentions ${fragment}:\n${text}`);
    }
  });

  it('reads the settings of later features with the spec defaults', async () => {
    const config = await loaded(required);
    assert.equal(config.userLockTries, 10);
    assert.equal(config.userLockTimeSeconds, 3600);
    // The spec's 4, capped at the CPUs when no source names the number (docs/design.md#worker-processes).
    assert.equal(config.workers, Math.min(4, availableParallelism()));
    assert.deepEqual(config.passPolicy, {
      minPassLength: 12,
      maxUnsafeSimilarity: 50,
      maxCharFrequency: 0.3,
      minPwnedMatches: 25,
    });
    assert.deepEqual(config.passHash, { kind: 'argon2id', memoryCost: 7168, timeCost: 5, parallelism: 1 });
    assert.equal(config.rateLimits?.burst, 150);
    assert.equal(config.email.port, 25);
    assert.equal(config.email.server, 'localhost');
    assert.equal(config.tls, null);
    assert.equal((await loaded({ ...required, AUTHSVC_RATELIMITS: 'none' })).rateLimits, null);
    assert.equal((await loaded({ ...required, AUTHSVC_PWNEDURL: 'none' })).pwnedUrl, null);
    assert.equal(config.stepUpWindowSeconds, 600);
    assert.deepEqual(config.mfaRequiredRoles, []);
    assert.deepEqual((await loaded({ ...required, AUTHSVC_MFAREQUIRED: ' staff; superuser ;' })).mfaRequiredRoles, [
      'staff',
      'superuser',
    ]);
    const misspelt = await load({ ...required, AUTHSVC_MFAREQUIRED: 'superuser;staf' });
    assert.equal(misspelt.ok, false);
    assert.match(misspelt.ok ? '' : misspelt.problems.join('\n'), /mfarequired names "staf", not a role of the policy/);
  });

  it('checks ratelimits action names against the actions the server knows, with the other problems', async () => {
    const result = await load({
      ...required,
      AUTHSVC_RATELIMITS: 'user-lgin:5;user-login:50',
      AUTHSVC_REDISURL: 'http://redis',
      AUTHSVC_LOGINBACKOFF: 'sometimes',
      AUTHSVC_WORKERS: '0',
    });
    const text = result.ok ? '' : result.problems.join('\n');
    for (const fragment of ['user-lgin', 'redisurl', 'loginbackoff', 'workers']) {
      assert.ok(text.includes(fragment), `mentions ${fragment}:\n${text}`);
    }
    assert.ok(!text.includes('"user-login"'), text);
  });

  it('reads the admission items: Redis, the back-off, and the test clock only with debugmode 1', async () => {
    const config = await loaded(required);
    assert.equal(config.redisUrl, null);
    assert.equal(config.loginBackoff, true);
    assert.equal(config.testClockFile, null);
    const set = await loaded({
      ...required,
      AUTHSVC_REDISURL: 'rediss://user:pw@redis.example.org:6380/1',
      AUTHSVC_LOGINBACKOFF: 'none',
      AUTHSVC_TEST_CLOCK: 'clock.txt',
    });
    assert.equal(set.redisUrl, 'rediss://user:pw@redis.example.org:6380/1');
    assert.equal(set.loginBackoff, false);
    assert.equal(set.testClockFile, null, 'ignored without debugmode');
    const debug = await loaded({ ...required, AUTHSVC_TEST_CLOCK: 'clock.txt', AUTHSVC_DEBUGMODE: '1' });
    assert.equal(debug.testClockFile, join(dir, 'clock.txt'));
  });
});

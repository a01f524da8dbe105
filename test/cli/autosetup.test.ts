import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createClient } from '../../src/client/index.js';
import { loadConfVars } from '../../src/config/confvars.js';
import { SHIPPED_CONFVARS } from '../../src/package-dir.js';
import { runAuthsvc, startAuthsvc } from './spawn.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-cli-'));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('authsvc --help', () => {
  it('prints every item of the configuration-variables file with its option, variables and default', async () => {
    const result = await runAuthsvc(['--help'], { cwd: tempDir() });
    assert.equal(result.code, 0, result.stderr);
    const items = loadConfVars(SHIPPED_CONFVARS, '.').items;
    for (const [name, item] of Object.entries(items)) {
      assert.ok(result.stdout.includes(`${name}: `), name);
      if (item.cmdline !== null) assert.ok(result.stdout.includes(`--${item.cmdline}`), item.cmdline);
    }
    assert.match(result.stdout, /AUTHSVC_SECRET, AUTHSVC_SECRETKEY/);
    assert.match(result.stdout, /PORT, AUTHSVC_PORT {2}\[int, default 13431\]/);
  });

  it('exits 2 listing every problem of the command line', async () => {
    const result = await runAuthsvc(['--port', '--nonsense=1', 'extra'], { cwd: tempDir() });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--port needs a value/);
    assert.match(result.stderr, /unexpected argument "extra"/);
    assert.match(result.stderr, /unknown option --nonsense/);
  });
});

describe('authsvc --autosetup', () => {
  it('sets up from piped answers; the .env it writes starts a server a client can use', async () => {
    const basedir = join(tempDir(), 'setup');
    const answers = ['', '', 'Admin@Example.org', 'a long enough admin password', ''].join('\n');
    const result = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], { cwd: tempDir(), input: answers });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Database URL \(blank: .*\): /);
    assert.match(
      result.stdout,
      new RegExp(`authsvc --basedir=${basedir} --confvars=${basedir}/confvars.json --envfile=${basedir}/.env`),
    );

    for (const file of ['.authsvc-secret-key', '.authsvc-salt']) assert.equal(mode(join(basedir, file)), 0o400, file);
    assert.equal(mode(join(basedir, 'authsvc.sqlite')), 0o600);
    assert.ok(existsSync(join(basedir, 'permissions.json')));
    assert.ok(existsSync(join(basedir, 'confvars.json')));
    assert.equal(
      existsSync(join(basedir, '.authsvc-admin-credentials')),
      false,
      'the password was given: nothing to write',
    );
    const env = readFileSync(join(basedir, '.env'), 'utf8');
    assert.match(env, new RegExp(`^AUTHSVC_AUTHDB=sqlite:///${basedir}/authsvc.sqlite$`, 'm'));
    assert.match(env, new RegExp(`^AUTHSVC_SECRET=${basedir}/.authsvc-secret-key$`, 'm'));
    assert.ok(
      !env.includes(readFileSync(join(basedir, '.authsvc-secret-key'), 'utf8')),
      '.env names the secret file, not the secret',
    );

    const server = await startAuthsvc(
      [`--basedir=${basedir}`, `--confvars=${basedir}/confvars.json`, `--envfile=${basedir}/.env`, '--port=0'],
      {
        cwd: tempDir(),
      },
    );
    try {
      const client = createClient({
        url: server.url,
        secret: readFileSync(join(basedir, '.authsvc-secret-key'), 'utf8'),
      });
      const reply = await client.request(
        'session-new',
        { ip_address: '192.0.2.1', user_agent: 'ua', user_id: 1, expires: 1, extra_info_json: {} },
        { clientIp: '192.0.2.1' },
      );
      assert.equal(reply.success, true);
      const token = reply.success ? (reply.response.session_token ?? '') : '';
      const info = await client.request('session-exists', { session_token: token }, { clientIp: '192.0.2.1' });
      assert.equal(
        info.success && info.response.session_info?.email,
        'admin@example.org',
        'the admin from the answers',
      );
      client.close();
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('generates the admin password when left blank, and refuses a second run unless --force', async () => {
    const basedir = join(tempDir(), 'again');
    const first = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], { cwd: tempDir(), input: '\n\n\n\n' });
    assert.equal(first.code, 0, first.stderr);
    const credentials = join(basedir, '.authsvc-admin-credentials');
    assert.equal(mode(credentials), 0o400);
    assert.match(readFileSync(credentials, 'utf8'), /^\S+@localhost \S{20,}\n$/);
    const secret = readFileSync(join(basedir, '.authsvc-secret-key'), 'utf8');

    const second = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], { cwd: tempDir(), input: '\n\n\n\n' });
    assert.equal(second.code, 2);
    assert.match(second.stderr, /already set up .* add --force/);

    const forced = await runAuthsvc(['--autosetup', '--force', `--basedir=${basedir}`], {
      cwd: tempDir(),
      input: '\n\n\n\n',
    });
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(join(basedir, '.authsvc-secret-key'), 'utf8'), secret, 'the secret is never overwritten');
  });

  it('refuses answers it cannot use', async () => {
    const basedir = join(tempDir(), 'bad');
    const result = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], {
      cwd: tempDir(),
      input: `oracle://db\n${join(basedir, 'none.json')}\n\n\n`,
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /database URL has an unknown scheme/);
    assert.match(result.stderr, /permissions: cannot read/);
    assert.equal(existsSync(join(basedir, '.env')), false);
  });
});

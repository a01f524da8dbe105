import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { SHIPPED_CONFVARS } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';

const dir = mkdtempSync(join(tmpdir(), 'authsvc-retrieval-'));
const key = generateFernetKey();
const required = {
  AUTHSVC_SECRET: key,
  AUTHSVC_PIISALT: 'pepper-pepper',
  AUTHSVC_AUTHDB: 'sqlite:///a.sqlite',
  AUTHSVC_BASEDIR: dir,
};

/** A vault-like HTTP server: records what it was asked, answers by path. */
let vault: Server;
let vaultUrl = '';
const seen: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: string }> = [];
before(async () => {
  vault = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (req.url === '/plain') res.end(`${key}\n`);
      else if (req.url === '/json')
        res.end(JSON.stringify({ data: { keys: [{ value: key }], salt: 'salt-from-json' } }));
      else if (req.url === '/slow') setTimeout(() => res.end(key), 5000).unref();
      else res.writeHead(500).end('no');
    });
  });
  await new Promise<void>((r) => vault.listen(0, '127.0.0.1', r));
  vaultUrl = `http://127.0.0.1:${(vault.address() as AddressInfo).port}`;
});
after(() => {
  vault.closeAllConnections();
  vault.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A copy of the shipped confvars file with some items changed. */
function confvarsWith(name: string, changes: Record<string, Record<string, unknown>>): string {
  const items = JSON.parse(readFileSync(SHIPPED_CONFVARS, 'utf8')) as Record<string, Record<string, unknown>>;
  for (const [item, change] of Object.entries(changes)) items[item] = { ...items[item], ...change };
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(items));
  return path;
}

const problemsOf = async (argv: string[], env: Record<string, string>): Promise<string> => {
  const result = await loadConfig(argv, env);
  assert.equal(result.ok, false);
  return result.ok ? '' : result.problems.join('\n');
};

describe('precedence', () => {
  it('takes the real environment over --envfile over the option over the default', async () => {
    const envfile = join(dir, 'precedence.env');
    writeFileSync(
      envfile,
      ['# a comment', 'export AUTHSVC_PORT=2001', "AUTHSVC_SESSIONEXPIRY='7'", 'authsvc_messagettl="60"', ''].join(
        '\n',
      ),
    );
    const result = await loadConfig(
      [`--envfile=${envfile}`, '--port=3001', '--sessionexpiry=9', '--maxbodysize=4096'],
      {
        ...required,
        AUTHSVC_SESSIONEXPIRY: '5',
      },
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.join('; '));
    assert.equal(result.config.sessionExpiryDays, 5, 'environment over envfile and option');
    assert.equal(result.config.port, 2001, 'envfile over option');
    assert.equal(result.config.messageTtlSeconds, 60, 'envfile names are case-insensitive');
    assert.equal(result.config.maxBodySize, 4096, 'option over default');
    assert.equal(result.config.userLockTries, 10, 'default');
  });

  it('refuses an unreadable or malformed env file', async () => {
    assert.match(
      await problemsOf([`--envfile=${join(dir, 'missing.env')}`], required),
      /--envfile: cannot read .*missing\.env \(ENOENT\)/,
    );
    const bad = join(dir, 'bad.env');
    writeFileSync(bad, 'JUST A LINE\n');
    assert.match(await problemsOf([`--envfile=${bad}`], required), /bad\.env:1: not a NAME=value line/);
  });
});

describe('readable_from_file', () => {
  it('reads the value from a file', async () => {
    writeFileSync(join(dir, 'key.txt'), key);
    const result = await loadConfig([], { ...required, AUTHSVC_SECRET: 'key.txt' });
    assert.ok(result.ok);
  });

  it('fetches a string over HTTP, with [[VARNAME]] markers in headers and data', async () => {
    const confvars = confvarsWith('http-string', {
      secret: {
        readable_from_file: [
          'http',
          {
            method: 'POST',
            headers: { Authorization: 'Bearer [[VAULT_TOKEN]]' },
            data: 'role=[[VAULT_ROLE]]',
            timeout: 2,
          },
          'string',
        ],
      },
    });
    const result = await loadConfig([`--confvars=${confvars}`], {
      ...required,
      AUTHSVC_SECRET: `${vaultUrl}/plain`,
      VAULT_TOKEN: 't0ken',
      VAULT_ROLE: 'auth',
    });
    assert.ok(result.ok, result.ok ? '' : result.problems.join('; '));
    const request = seen.at(-1);
    assert.equal(request?.method, 'POST');
    assert.equal(request?.headers['authorization'], 'Bearer t0ken');
    assert.equal(request?.body, 'role=auth');
  });

  it('fetches JSON over HTTP and picks a value by key path, with array indexes', async () => {
    for (const path of ['data.keys._arr_0.value', 'data.keys[0].value']) {
      const confvars = confvarsWith(`http-json-${path.length}`, {
        secret: { readable_from_file: ['http', { timeout: 2 }, 'json', path] },
        piisalt: { readable_from_file: ['http', {}, 'json', 'data.salt'] },
      });
      const result = await loadConfig([`--confvars=${confvars}`], {
        ...required,
        AUTHSVC_SECRET: `${vaultUrl}/json`,
        AUTHSVC_PIISALT: `${vaultUrl}/json`,
      });
      assert.ok(result.ok, result.ok ? '' : result.problems.join('; '));
      assert.equal(result.config.piisalt, 'salt-from-json');
    }
  });

  it('refuses fetches that fail, time out, lack their markers or their key path', async () => {
    // Only the time-out case has a short timeout: the others must get their answer on a loaded machine too (this
    // process serves it), and one at 0.3 s once ran out before its 500 came.
    const confvars = confvarsWith('http-fail', {
      secret: { readable_from_file: ['http', { timeout: 10, headers: { 'X-Token': '[[NOT_SET]]' } }, 'string'] },
      piisalt: { readable_from_file: ['http', { timeout: 10 }, 'json', 'data.nothing'] },
    });
    const missingMarker = await problemsOf([`--confvars=${confvars}`], {
      ...required,
      AUTHSVC_SECRET: `${vaultUrl}/plain`,
      AUTHSVC_PIISALT: `${vaultUrl}/json`,
    });
    assert.match(missingMarker, /the environment lacks NOT_SET/);
    assert.match(missingMarker, /has no "data\.nothing"/);

    const plain = confvarsWith('http-timeout', {
      secret: { readable_from_file: ['http', { timeout: 0.3 }, 'string'] },
    });
    const started = Date.now();
    const slow = await problemsOf([`--confvars=${plain}`], { ...required, AUTHSVC_SECRET: `${vaultUrl}/slow` });
    assert.match(slow, /no answer within 0\.3 s/);
    assert.ok(Date.now() - started < 3000, 'the timeout is honoured');
    const patient = confvarsWith('http-patient', {
      secret: { readable_from_file: ['http', { timeout: 10 }, 'string'] },
    });
    assert.match(
      await problemsOf([`--confvars=${patient}`], { ...required, AUTHSVC_SECRET: `${vaultUrl}/error` }),
      /answered HTTP 500/,
    );
    assert.match(
      await problemsOf([`--confvars=${patient}`], { ...required, AUTHSVC_SECRET: 'http://127.0.0.1:1/x' }),
      /failed/,
    );
  });
});

describe('postprocess_value', () => {
  it('passes the value through a function of a module beside the confvars file (sync or async)', async () => {
    writeFileSync(
      join(dir, 'decode.mjs'),
      "export function fromBase64(v) { return Buffer.from(v, 'base64').toString('utf8'); }\nexport async function upper(v) { return String(v).toUpperCase(); }\n",
    );
    const confvars = confvarsWith('post', {
      secret: { postprocess_value: 'decode.mjs::fromBase64' },
      piisalt: { postprocess_value: './decode.mjs::upper' },
    });
    const result = await loadConfig([`--confvars=${confvars}`], {
      ...required,
      AUTHSVC_SECRET: Buffer.from(key).toString('base64'),
    });
    assert.ok(result.ok, result.ok ? '' : result.problems.join('; '));
    assert.equal(result.config.piisalt, 'PEPPER-PEPPER');
  });

  it('refuses a missing module or function', async () => {
    const confvars = confvarsWith('post-bad', {
      secret: { postprocess_value: 'nowhere.mjs::f' },
      piisalt: { postprocess_value: 'decode.mjs::absent' },
    });
    const problems = await problemsOf([`--confvars=${confvars}`], required);
    assert.match(problems, /cannot load nowhere\.mjs/);
    assert.match(problems, /decode\.mjs has no function absent/);
  });

  it('refuses a confvars file that is not one', async () => {
    const path = join(dir, 'broken-confvars.json');
    writeFileSync(path, JSON.stringify({ secret: { env: 1 } }));
    assert.match(await problemsOf([`--confvars=${path}`], required), /item "secret": env must be/);
    assert.match(await problemsOf([`--confvars=${join(dir, 'none.json')}`], required), /--confvars: cannot read/);
  });
});

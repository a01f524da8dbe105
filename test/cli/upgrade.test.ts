import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from '../../src/client/index.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { startAuthsvc } from './spawn.js';

/**
 * Upgrades: `npm start` (dist/start.js) of a copy of the package, so that the test can play the next
 * release by changing the copy's src/config/confvars.json without touching the real one.
 */
const root = mkdtempSync(join(tmpdir(), 'authsvc-upgrade-'));
const pkg = join(root, 'authsvc');
const dataDir = join(pkg, '.authsvc');
const confvarsCopy = join(dataDir, 'confvars.json');
const fixtures = join(PKG_DIR, 'test', 'config', 'fixtures');

before(() => {
  // dist/ runs (test/cli/spawn.ts); it reads the shipped confvars.json from the copy's src/config/.
  for (const part of ['src', 'dist', 'policy', 'policy-schema', 'package.json', 'tsconfig.json']) {
    cpSync(join(PKG_DIR, part), join(pkg, part), { recursive: true });
  }
  symlinkSync(join(PKG_DIR, 'node_modules'), join(pkg, 'node_modules'));
});
after(() => rmSync(root, { recursive: true, force: true }));

type Items = Record<string, Record<string, unknown>>;
const readJson = (path: string): Items => JSON.parse(readFileSync(path, 'utf8')) as Items;

/** Starts `npm start` of the copy, checks that a client is served, and stops it. */
async function startAndUse(args: string[] = [], env: Record<string, string> = {}): Promise<string> {
  const server = await startAuthsvc(['--port=0', ...args], { cwd: root, entry: 'start.ts', pkgDir: pkg, env });
  try {
    const client = createClient({
      url: server.url,
      secret: readFileSync(join(dataDir, '.authsvc-secret-key'), 'utf8'),
    });
    const reply = await client.request(
      'session-new',
      { ip_address: '192.0.2.1', user_agent: 'ua', user_id: 2, expires: 1, extra_info_json: {} },
      { clientIp: '192.0.2.1' },
    );
    client.close();
    assert.equal(reply.success, true);
    return server.output();
  } finally {
    assert.equal(await server.stop(), 0);
  }
}

describe('upgrades: npm start on a data folder made by an earlier release', () => {
  it('sets up .authsvc/ with its copy of the configuration-variables file on the first start', async () => {
    const output = await startAndUse();
    assert.match(output, /First start: authsvc is set up/);
    const workers = Math.min(4, availableParallelism());
    assert.match(output, new RegExp(`^workers: ${workers} \\(min\\(4, \\d+ available CPUs\\)`, 'm'));
    assert.deepEqual(readJson(confvarsCopy), readJson(join(PKG_DIR, 'src', 'config', 'confvars.json')));
  });

  it('starts after the package adds an item the copy lacks, and takes that item as an option', async () => {
    const shipped = join(pkg, 'src', 'config', 'confvars.json');
    const items = readJson(shipped);
    items['upgradeprobe'] = {
      env: 'AUTHSVC_UPGRADEPROBE',
      cmdline: 'upgradeprobe',
      type: 'str',
      default: '',
      help: 'An item added by the next release.',
      readable_from_file: false,
      postprocess_value: null,
    };
    writeFileSync(shipped, JSON.stringify(items, null, 2));
    assert.equal('upgradeprobe' in readJson(confvarsCopy), false);
    await startAndUse(['--upgradeprobe=on']);
  });

  it('starts on a copy that lacks items added since it was written (messagettl, workers)', async () => {
    const items = readJson(confvarsCopy);
    delete items['messagettl'];
    delete items['workers'];
    writeFileSync(confvarsCopy, JSON.stringify(items, null, 2));
    await startAndUse();
  });

  for (const fixture of ['confvars-4eede90.json', 'confvars-92c9d10.json']) {
    it(`starts on the copy written by an earlier layout (${fixture})`, async () => {
      writeFileSync(confvarsCopy, readFileSync(join(fixtures, fixture)));
      await startAndUse();
    });
  }

  it('keeps the workers item when one is given, and then says nothing about it', async () => {
    const output = await startAndUse([], { AUTHSVC_WORKERS: '1' });
    assert.doesNotMatch(output, /^workers: /m);
  });

  it('still lets the copy override an item of the package (a changed default)', async () => {
    const items = readJson(confvarsCopy);
    items['servername'] = { default: 'upgraded-authsvc' };
    writeFileSync(confvarsCopy, JSON.stringify(items, null, 2));
    const output = await startAndUse();
    assert.match(output, /listening/);
  });
});

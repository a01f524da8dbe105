import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { SHIPPED_CONFVARS } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('confvars');

const required = {
  AUTHSVC_BASEDIR: dir,
  AUTHSVC_SECRET: generateFernetKey(),
  AUTHSVC_PIISALT: 'pepper-pepper',
  AUTHSVC_AUTHDB: 'sqlite:///a.sqlite',
};

function writeConfVars(name: string, items: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(items));
  return path;
}

async function configWith(argv: string[], env: Record<string, string> = {}) {
  const result = await loadConfig(argv, { ...required, ...env });
  assert.ok(result.ok, result.ok ? '' : result.problems.join('; '));
  return result.config;
}

describe('a --confvars file only adds or overrides items of the package', () => {
  it('takes the package definition of every item the file lacks (an empty file starts)', async () => {
    const config = await configWith([`--confvars=${writeConfVars('empty', {})}`, '--messagettl=33']);
    assert.equal(config.messageTtlSeconds, 33);
  });

  it('overrides an item field by field, keeping the fields it does not name', async () => {
    const path = writeConfVars('partial', { servername: { default: 'from-the-copy' } });
    assert.equal((await configWith([`--confvars=${path}`])).serverName, 'from-the-copy');
    const renamed = writeConfVars('renamed', { port: { env: 'MY_PORT' } });
    assert.equal((await configWith([`--confvars=${renamed}`], { MY_PORT: '4444' })).port, 4444);
  });

  it('adds an item the package lacks, which must then be complete', async () => {
    const complete = writeConfVars('added', {
      extra: {
        env: 'AUTHSVC_EXTRA',
        cmdline: 'extra',
        type: 'str',
        default: '',
        help: 'an operator item',
        readable_from_file: false,
        postprocess_value: null,
      },
    });
    await configWith([`--confvars=${complete}`, '--extra=1']);
    const incomplete = writeConfVars('incomplete', { extra: { env: 'AUTHSVC_EXTRA' } });
    const result = await loadConfig([`--confvars=${incomplete}`], required);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.problems.join('; '), /item "extra": cmdline must be a name or null/);
  });

  it('resolves the postprocess module of an item against the folder of the file that defined it', async () => {
    writeFileSync(join(dir, 'upper.mjs'), 'export const upper = (v) => v.toUpperCase();');
    const path = writeConfVars('post', { piisalt: { postprocess_value: 'upper.mjs::upper' } });
    assert.equal((await configWith([`--confvars=${path}`])).piisalt, 'PEPPER-PEPPER');
  });

  it('keeps the shipped file complete: it defines every item the server decodes', () => {
    const items = JSON.parse(readFileSync(SHIPPED_CONFVARS, 'utf8')) as Record<string, unknown>;
    for (const name of ['secret', 'piisalt', 'authdb', 'messagettl', 'workers']) assert.ok(name in items, name);
  });
});

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { tempDir } from '../helpers/temp.js';
import { runAuthsvc, startAuthsvc } from './spawn.js';

/**
 * The order of the sources of an item is the spec's (environment, then --envfile, then option, then default). It is
 * stated in one sentence by --help and docs/configuration.md, and the server warns once, naming the item, when a value
 * given on the command line is not used because a variable overrides it.
 */
const root = tempDir('precedence');
const SENTENCE =
  'Each item is taken from the first of these that sets it: its environment variable, a line of the --envfile, ' +
  'its command-line option, its default; so a variable overrides an option given on the command line ' +
  '(authsvc warns when one does).';
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replaceAll('`', '');

describe('the order of the configuration sources', () => {
  it('is stated in one sentence by --help and by docs/configuration.md', async () => {
    const help = await runAuthsvc(['--help'], { cwd: root });
    assert.equal(help.code, 0, help.stderr);
    assert.ok(oneLine(help.stdout).includes(SENTENCE), help.stdout.slice(0, 1500));
    const doc = readFileSync(join(PKG_DIR, 'docs', 'configuration.md'), 'utf8');
    assert.ok(oneLine(doc).includes(SENTENCE), 'docs/configuration.md (npm run docs)');
  });

  it('makes the server warn once, naming the item, when the env file overrides an option', async () => {
    const envFile = join(root, 'test.env');
    writeFileSync(
      envFile,
      [
        `AUTHSVC_SECRET=${generateFernetKey()}`,
        'AUTHSVC_PIISALT=precedence-salt',
        'AUTHSVC_AUTHDB=sqlite:///p.sqlite',
        `AUTHSVC_BASEDIR=${root}`,
        'PORT=0',
        '',
      ].join('\n'),
    );
    const server = await startAuthsvc([`--envfile=${envFile}`, '--port=23439', '--workers=2', `--basedir=${root}`], {
      cwd: root,
    });
    try {
      assert.doesNotMatch(server.url, /:23439\//, 'the env file wins');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const warnings = server.output().match(/^.*option --port is not used.*$/gm) ?? [];
      assert.equal(warnings.length, 1, server.output());
      assert.match(warnings[0] ?? '', new RegExp(`port: .*PORT from the --envfile ${envFile}`));
      assert.doesNotMatch(server.output(), /basedir: /, 'an option equal to the variable is not overridden');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('names the environment when a variable of the environment overrides an option', async () => {
    const server = await startAuthsvc(['--port=23439', '--workers=1', '--listen=127.0.0.1'], {
      cwd: root,
      env: {
        AUTHSVC_SECRET: generateFernetKey(),
        AUTHSVC_PIISALT: 'precedence-salt',
        AUTHSVC_AUTHDB: 'sqlite:///q.sqlite',
        AUTHSVC_BASEDIR: root,
        AUTHSVC_PORT: '0',
        AUTHSVC_LISTEN: '127.0.0.1',
      },
    });
    try {
      assert.match(server.output(), /port: .*option --port is not used.*AUTHSVC_PORT from the environment/);
      assert.doesNotMatch(server.output(), /listen: /);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

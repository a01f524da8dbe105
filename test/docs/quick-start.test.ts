/**
 * The README's quick start and the banner of `npm start`, as a new user follows them: `npm start` (dist/start.js
 * of a copy of the package, as test/cli/upgrade.test.ts runs it), then, in a fresh folder outside the clone with
 * the client installed as docs/client.md says (its packed tarball), the README's TypeScript snippet and the
 * banner's "connect a frontend" lines, each taken from the real text, run against that server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PKG_DIR } from '../../src/package-dir.js';
import { startAuthsvc } from '../cli/spawn.js';
import type { Started } from '../cli/spawn.js';
import { childEnv } from '../helpers/child-env.js';
import { installClient, packClient } from '../helpers/client-package.js';
import { blocksOf } from '../helpers/doc-blocks.js';
import { tempDir } from '../helpers/temp.js';
import { until } from '../helpers/wait.js';

const run = promisify(execFile);
const work = tempDir('quick-start');
const pkg = join(work, 'authsvc');
const frontend = join(work, 'frontend');
/** The address the README's snippet names: where `npm start` listens by default. */
const DEFAULT_URL = 'http://127.0.0.1:13431/';

let server: Started;
let banner: string;

before(async () => {
  for (const part of ['src', 'dist', 'policy', 'policy-schema', 'package.json', 'tsconfig.json']) {
    cpSync(join(PKG_DIR, part), join(pkg, part), { recursive: true });
  }
  symlinkSync(join(PKG_DIR, 'node_modules'), join(pkg, 'node_modules'));
  installClient(frontend, packClient(work));
  // `npm start` on a free port (the default one may be taken on this machine), one worker.
  server = await startAuthsvc(['--port=0', '--workers=1'], { cwd: pkg, entry: 'start.ts', pkgDir: pkg });
  await until('the start banner', () => server.output().includes('stop with Ctrl-C'));
  banner = server.output();
});
after(async () => {
  await server.stop();
});

/** Runs a file of the frontend folder with node (TypeScript by node's own type stripping). */
async function runInFrontend(file: string, env: Record<string, string> = {}): Promise<string> {
  const strip = 'typescript' in process.features ? [] : ['--experimental-strip-types'];
  const { stdout } = await run(process.execPath, [...strip, '--no-warnings', file], {
    cwd: frontend,
    env: childEnv(env),
    encoding: 'utf8',
    timeout: 30_000,
  });
  return stdout;
}

describe('the quick start, from a fresh folder outside the clone', () => {
  it("the README's snippet opens a session (run with AUTHSVC_SECRET from .authsvc/ as the README says)", async () => {
    const readme = readFileSync(join(PKG_DIR, 'README.md'), 'utf8');
    const quickStart = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
    );
    assert.match(quickStart, /AUTHSVC_SECRET="\$\(cat \.authsvc\/\.authsvc-secret-key\)"/);
    const snippet = blocksOf('README.md').find((b) => b.language === 'ts' && b.code.includes('createClient('));
    assert.ok(snippet, "the README's quick start has a TypeScript snippet that calls createClient");
    assert.ok(snippet.code.includes(DEFAULT_URL), `the snippet talks to ${DEFAULT_URL}, where npm start listens`);
    const url = /authsvc is listening on (\S+)/.exec(banner)?.[1];
    assert.ok(url, banner);
    writeFileSync(join(frontend, 'quickstart.ts'), snippet.code.replaceAll(DEFAULT_URL, url));
    // `"$(cat file)"`: the file's text without its final newline.
    const secret = readFileSync(join(pkg, '.authsvc', '.authsvc-secret-key'), 'utf8').replace(/\n+$/, '');
    const printed = await runInFrontend('quickstart.ts', { AUTHSVC_SECRET: secret });
    assert.match(printed, /^session token: \S{20,}\n$/);
  });

  it("the banner's lines connect a frontend (a request through the client they make succeeds)", async () => {
    const lines = banner.split('\n');
    const start = lines.findIndex((line) => line.trim() === 'connect a frontend:');
    assert.ok(start >= 0, banner);
    const indent = (line: string): number => line.length - line.trimStart().length;
    const code: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (indent(line) <= indent(lines[start] ?? '')) break;
      code.push(line.trim());
    }
    assert.ok(code.length >= 2, banner);
    // The banner's lines as they are, then a use of the client they make.
    writeFileSync(
      join(frontend, 'banner.mjs'),
      [
        ...code,
        'const reply = await authsvc.request(',
        "  'session-new',",
        "  { ip_address: '192.0.2.7', user_agent: 'ua', user_id: null, extra_info_json: {} },",
        "  { clientIp: '192.0.2.7' },",
        ');',
        'authsvc.close();',
        'console.log(reply.success);',
        '',
      ].join('\n'),
    );
    assert.equal(await runInFrontend('banner.mjs'), 'true\n');
  });
});

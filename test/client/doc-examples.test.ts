/**
 * The code blocks of the client's documents must work: every `ts` block type-checks strictly against
 * the client (as `@authsvc/client`), every `python` block runs against a live server.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PKG_DIR } from '../../src/package-dir.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const DOCS = ['docs/protocol.md', 'docs/client.md'];
const run = promisify(execFile);

function blocks(language: string): Array<{ doc: string; code: string }> {
  return DOCS.flatMap((doc) =>
    [
      ...readFileSync(join(PKG_DIR, doc), 'utf8').matchAll(
        new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm'),
      ),
    ].map((m) => ({ doc, code: m[1] ?? '' })),
  );
}

const noPython =
  spawnSync('python3', ['-c', 'import cryptography, requests']).status === 0
    ? false
    : 'python3 with cryptography and requests is absent (apt-get install python3-cryptography python3-requests)';

describe('the code blocks of docs/protocol.md and docs/client.md', () => {
  let work: string;
  let server: TestServer;
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'authsvc-doc-blocks-'));
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('type-check strictly, the TypeScript ones', () => {
    const found = blocks('ts');
    assert.ok(found.length >= 2, 'a TypeScript example in each document');
    const files = found.map(({ code }, i) => {
      const file = join(work, `block-${i}.ts`);
      writeFileSync(file, `${code}\nexport {};\n`);
      return file;
    });
    writeFileSync(join(work, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: ['node'],
          typeRoots: [join(PKG_DIR, 'node_modules', '@types')],
          skipLibCheck: true,
          paths: { '@authsvc/client': [join(PKG_DIR, 'src', 'client', 'index.ts')] },
        },
        files,
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const compiled = spawnSync(process.execPath, [tsc, '-p', join(work, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
  });

  it('run, the Python ones', { skip: noPython }, async () => {
    const found = blocks('python');
    assert.ok(found.length >= 1);
    for (const { doc, code } of found) {
      const file = join(work, 'block.py');
      writeFileSync(file, code);
      const { stdout } = await run('python3', [file], {
        env: {
          ...process.env,
          PYTHONPATH: join(PKG_DIR, 'examples', 'python'),
          AUTHSVC_URL: server.url,
          AUTHSVC_SECRET: server.secret,
        },
        encoding: 'utf8',
      });
      assert.equal(stdout.trim(), '2', doc);
    }
  });
});

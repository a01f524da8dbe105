/**
 * Every code block of the documents (README.md, docs/*.md, src/client/README.md, examples/∗/README.md)
 * works or says why it is not run: `ts` blocks type-check strictly against the client (imported as
 * `@authsvc/client` or `authsvc/client`), `python` blocks run against a live server, `json` blocks
 * parse, and any other block carries a marker naming the test that runs it
 * or the reason it cannot run (test/helpers/doc-blocks.ts). The documents point only at files inside
 * the repository, and use no internal labels.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PKG_DIR } from '../../src/package-dir.js';
import { allBlocks, checkedDocuments, markerOf } from '../helpers/doc-blocks.js';
import type { DocBlock } from '../helpers/doc-blocks.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { strictCheck } from '../helpers/strict-check.js';

const run = promisify(execFile);
const blocks = allBlocks();
const where = (b: DocBlock): string => `${b.doc}:${b.line}`;
const notRun = (b: DocBlock): boolean =>
  markerOf(b, 'not-run') !== undefined ||
  markerOf(b, 'checked-by') !== undefined ||
  markerOf(b, 'runnable') !== undefined;
const CHECKED_LANGUAGES = new Set(['ts', 'typescript', 'python', 'json']);

const noPython =
  spawnSync('python3', ['-c', 'import cryptography, requests']).status === 0
    ? false
    : 'python3 with cryptography and requests is absent (apt-get install python3-cryptography python3-requests)';

describe('the code blocks of the documents', () => {
  it('are each checked here, or marked with the test that runs them or why they cannot run', () => {
    assert.ok(blocks.length >= 20, `found only ${blocks.length} blocks: is the reader broken?`);
    const problems: string[] = [];
    for (const b of blocks) {
      for (const bad of b.badMarkers)
        problems.push(`${where(b)}: "${bad}" is not a marker (not-run needs a reason of 10+ characters)`);
      const checkedBy = markerOf(b, 'checked-by');
      if (checkedBy !== undefined && !existsSync(join(PKG_DIR, checkedBy.path)))
        problems.push(`${where(b)}: checked-by names ${checkedBy.path}, which does not exist`);
      if (!CHECKED_LANGUAGES.has(b.language) && !notRun(b))
        problems.push(`${where(b)}: a \`\`\`${b.language} block with no marker`);
      if (markerOf(b, 'runnable') !== undefined && b.language !== 'sh')
        problems.push(
          `${where(b)}: runnable marks \`\`\`sh blocks only (scripts/run-doc-commands.ts runs them with bash)`,
        );
    }
    assert.deepEqual(
      problems,
      [],
      'On the line before each such block write <!-- checked-by: test/…/x.test.ts --> naming the test that runs it, ' +
        'or <!-- not-run: why it cannot run -->. Without a marker, ts blocks are type-checked, python blocks run and ' +
        'json blocks parsed here; any other block needs one.',
    );
  });

  it('parse, the JSON ones (whole, as the members of an object, or as a sequence of values)', () => {
    const found = blocks.filter((x) => x.language === 'json' && !notRun(x));
    assert.ok(found.length >= 5);
    const unparsed = found.filter((b) => parseJsonBlock(b.code) === null).map(where);
    assert.deepEqual(unparsed, [], 'not JSON, nor the members of an object, nor a sequence of JSON values');
  });

  describe('with a live server', () => {
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
      const found = blocks.filter((b) => (b.language === 'ts' || b.language === 'typescript') && !notRun(b));
      assert.ok(found.length >= 3, 'the README, protocol.md and client.md have TypeScript examples');
      const files = found.map((b, i) => {
        const file = join(work, `block-${i}.ts`);
        // Each block is a module of its own (top-level await, no clashes between blocks).
        writeFileSync(file, `// ${where(b)}\n${b.code}\nexport {};\n`);
        return file;
      });
      const client = [join(PKG_DIR, 'src', 'client', 'index.ts')];
      writeFileSync(join(work, 'package.json'), '{ "type": "module" }\n');
      const compiled = strictCheck(work, files, { '@authsvc/client': client, 'authsvc/client': client });
      // Name the document's own line for each error, not the temporary file's (its line 1 is the comment).
      const report = (compiled.stdout + compiled.stderr).replace(
        /\S*block-(\d+)\.ts\((\d+),(\d+)\)/g,
        (whole, i: string, line: string, column: string) => {
          const b = found[Number(i)];
          return b === undefined ? whole : `${b.doc}:${b.line + Number(line) - 1}:${column}`;
        },
      );
      assert.equal(compiled.status, 0, report);
    });

    it('run, the Python ones (printing what their `prints` marker says)', { skip: noPython }, async () => {
      const found = blocks.filter((b) => b.language === 'python' && !notRun(b));
      assert.ok(found.length >= 1);
      for (const b of found) {
        const file = join(work, 'block.py');
        writeFileSync(file, b.code);
        // Python stamps its tokens with the real time; the server's clock stood still while the type-check ran.
        server.clock.set(Date.now());
        const { stdout } = await run('python3', [file], {
          env: {
            ...process.env,
            PYTHONPATH: join(PKG_DIR, 'examples', 'python'),
            AUTHSVC_URL: server.url,
            AUTHSVC_SECRET: server.secret,
          },
          encoding: 'utf8',
        });
        const prints = markerOf(b, 'prints');
        if (prints !== undefined) assert.equal(stdout.trim(), prints.output, where(b));
      }
    });
  });
});

/** The values of a JSON block: one document, the members of an object (`"a": …, "b": …`), or several values. */
function parseJsonBlock(code: string): unknown[] | null {
  for (const text of [code, `{${code}}`]) {
    try {
      return [JSON.parse(text) as unknown];
    } catch {
      // try the next reading
    }
  }
  // Several values one after another (JSON Lines, or values spread over lines): split where a value ends.
  const values: unknown[] = [];
  let rest = code.trim();
  while (rest !== '') {
    let parsed = false;
    for (let end = rest.length; end > 0 && !parsed; end--) {
      if (rest[end - 1] !== '}' && rest[end - 1] !== ']') continue;
      try {
        values.push(JSON.parse(rest.slice(0, end)) as unknown);
        rest = rest.slice(end).trim();
        parsed = true;
      } catch {
        // a shorter prefix
      }
    }
    if (!parsed) return null;
  }
  return values;
}

describe('the documents', () => {
  const docs = checkedDocuments();
  const texts = docs.map((doc) => ({ doc, text: readFileSync(join(PKG_DIR, doc), 'utf8') }));

  it('use no internal labels and point at no file outside the repository', () => {
    // The project's design notes and the reference's description live outside the repository: a reader
    // of the docs cannot follow a pointer to them.
    const INTERNAL =
      /\bDESIGN\b|\bdecisions? \d+|\btraps? [A-Z]+\d+|shared\/(reference|spec)|\.\.\/shared\b|authnzerver\.md|traps\.md|SPEC\.md/g;
    const found = texts.flatMap(({ doc, text }) =>
      text.split('\n').flatMap((line, i) => [...line.matchAll(INTERNAL)].map((m) => `${doc}:${i + 1}: ${m[0]}`)),
    );
    assert.deepEqual(found, []);
  });

  it('link only to files that exist', () => {
    const broken = texts.flatMap(({ doc, text }) =>
      [...text.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1] ?? '')
        .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
        .filter((target) => !existsSync(join(PKG_DIR, dirname(doc), decodeURI(target.split('#')[0] ?? ''))))
        .map((target) => `${doc}: ${target}`),
    );
    assert.deepEqual(broken, []);
  });

  it('are all linked from the README', () => {
    const readme = texts.find((t) => t.doc === 'README.md')?.text ?? '';
    const unlinked = docs.filter((d) => d.startsWith('docs/') && !readme.includes(`](${d})`));
    assert.deepEqual(unlinked, [], 'add a link to each document in the README');
  });
});

/**
 * The design record lives in the repository (docs/design.md#design-record): code, tests, benchmarks and
 * scripts cite it as `docs/design.md#<anchor>`, every cited anchor is a heading of docs/design.md, and nothing
 * cites the design notes or trap lists kept outside the repository (their labels: "DESIGN decision 11",
 * "trap S7", "traps.md", or the older `docs/design.md, "Heading"` pointer).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';

const SELF = 'test/docs/design-citations.test.ts';
const CODE_DIRS = ['src', 'test', 'bench', 'scripts'];
const TEXT = /\.(?:[cm]?[jt]s|json|sh|md)$/;

/** GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces to hyphens, -1… for repeats. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(?:```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(join(PKG_DIR, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(path);
    return TEXT.test(e.name) ? [path] : [];
  });
}

interface Hit {
  readonly at: string;
  readonly text: string;
}

function hits(files: readonly string[], pattern: RegExp, group = 0): Hit[] {
  return files.flatMap((file) =>
    readFileSync(join(PKG_DIR, file), 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(pattern)].map((m) => ({ at: `${relative('.', file)}:${i + 1}`, text: m[group] ?? '' })),
      ),
  );
}

/** Citations of the design record in code: `docs/design.md#anchor`. */
const CITATION = /docs\/design\.md#([\w-]+)/gu;
/** Links into it from the documents (`](design.md#anchor)`), and its own links (`](#anchor)`). */
const DOC_LINK = /\]\((?:\.\/)?(?:docs\/)?design\.md#([\w-]+)\)/gu;
const OWN_LINK = /\]\(#([\w-]+)\)/gu;
/**
 * The labels of the documents kept outside the repository, whatever the line breaks of a comment between the
 * words, and the older pointer into docs/design.md by a heading's words instead of its anchor.
 */
const OUTSIDE =
  /\bDESIGN\b|\b[Dd]ecisions?(?:\s|\*|\/\/)+\d+|\btraps?(?:\s|\*|\/\/)+[A-Z]\d+|\btraps\.md\b|docs\/design\.md(?!#)/g;

/** What the checks below find in these files. */
function findProblems(codeFiles: readonly string[], docFiles: readonly string[], record: string) {
  const anchors = headingAnchors(record);
  return {
    dangling: [
      ...hits(codeFiles, CITATION, 1),
      ...hits(docFiles, DOC_LINK, 1),
      ...hits(['docs/design.md'], OWN_LINK, 1),
    ]
      .filter((h) => !anchors.has(h.text))
      .map((h) => `${h.at}: #${h.text}`),
    outside: hits(codeFiles, OUTSIDE).map((h) => `${h.at}: ${h.text}`),
  };
}

describe('citations of the design record', () => {
  const codeFiles = CODE_DIRS.flatMap(filesUnder).filter((f) => f !== SELF);
  const docFiles = ['README.md', ...filesUnder('docs').filter((f) => f.endsWith('.md'))];
  const record = readFileSync(join(PKG_DIR, 'docs/design.md'), 'utf8');

  it('finds the code that cites it (is the reader broken?)', () => {
    const cited = hits(codeFiles, CITATION, 1);
    assert.ok(cited.length >= 100, `only ${cited.length} citations found`);
  });

  it('every cited anchor is a heading of docs/design.md', () => {
    assert.deepEqual(findProblems(codeFiles, docFiles, record).dangling, []);
  });

  it('nothing cites a design document outside the repository', () => {
    assert.deepEqual(findProblems(codeFiles, docFiles, record).outside, []);
  });

  it('can fail: a dangling anchor and each outside label are caught', () => {
    assert.deepEqual(
      [...headingAnchors('# A b\n## Design: *one*\n## A b\n```\n# no\n```\n')],
      ['a-b', 'design-one', 'a-b-1'],
    );
    const anchors = headingAnchors(record);
    const line =
      '// docs/design.md#drain, docs/design.md#no-such-section; DESIGN decision 11, trap S7, docs/design.md, "Mail"';
    assert.deepEqual(
      [...line.matchAll(CITATION)].map((m) => m[1] ?? '').filter((a) => !anchors.has(a)),
      ['no-such-section'],
    );
    assert.deepEqual(
      [...line.matchAll(OUTSIDE)].map((m) => m[0]),
      ['DESIGN', 'decision 11', 'trap S7', 'docs/design.md'],
    );
  });
});

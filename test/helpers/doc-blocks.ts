/**
 * The fenced code blocks of the repository's documents, with the marker written just before each.
 * test/docs/code-blocks.test.ts checks every block through this reader (type-checks `ts`, runs
 * `python`, parses `json`, and requires a marker on every other block); tests that run a document's
 * shell examples themselves (test/deploy/operations-doc.test.ts) read them here too.
 *
 * A marker is an HTML comment on the line before the block (blank lines between are allowed):
 *   <!-- not-run: why it cannot run -->        the block is shown, never run (the reason is required)
 *   <!-- checked-by: test/x/y.test.ts -->      that test (or script) runs or checks the block
 *   <!-- prints: 2 -->                         a python block must print exactly this
 *   <!-- runnable -->                          a shell block a user runs as written, in a clone:
 *                                              scripts/run-doc-commands.ts runs it (docs/development.md)
 *   <!-- runnable: serves -->                  the same, whose last line serves until stopped
 *   <!-- runnable: with NAME=value … -->       the same, with these variables set (a password to pipe, say)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';

export type Marker =
  | { readonly kind: 'not-run'; readonly reason: string }
  | { readonly kind: 'checked-by'; readonly path: string }
  | { readonly kind: 'prints'; readonly output: string }
  | { readonly kind: 'runnable'; readonly serves: boolean; readonly env: Readonly<Record<string, string>> };

export interface DocBlock {
  /** The document, relative to the repository, e.g. `docs/protocol.md`. */
  readonly doc: string;
  /** The line of the opening fence (1-based). */
  readonly line: number;
  /** The info string's first word, lower case; '' when there is none. */
  readonly language: string;
  /** The block's text, its fence's indentation removed, ending with a newline. */
  readonly code: string;
  readonly markers: readonly Marker[];
  /** Comments before the block that look like markers but are not one of the kinds above. */
  readonly badMarkers: readonly string[];
}

/** Every document whose code blocks are checked: the README, docs/ (and its folders), the client's and the examples' READMEs. */
export function checkedDocuments(): string[] {
  const docs = readdirSync(join(PKG_DIR, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  const examples = readdirSync(join(PKG_DIR, 'examples'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `examples/${e.name}/README.md`)
    .filter((path) => {
      try {
        readFileSync(join(PKG_DIR, path));
        return true;
      } catch {
        return false;
      }
    })
    .sort();
  return ['README.md', ...docs, 'src/client/README.md', ...examples];
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^<!--\s*([a-z-]+):\s*([\s\S]*?)\s*-->$/;
const RUNNABLE = /^<!--\s*runnable(?::\s*(serves|with((?:\s+[A-Z_][A-Z0-9_]*=\S+)+)))?\s*-->$/;

function parseMarker(comment: string): Marker | null {
  const runnable = RUNNABLE.exec(comment);
  if (runnable !== null) {
    const pairs = (runnable[2] ?? '').trim().split(/\s+/).filter(Boolean);
    const env = Object.fromEntries(
      pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    return { kind: 'runnable', serves: runnable[1] === 'serves', env };
  }
  const match = MARKER.exec(comment);
  if (match === null) return null;
  const [, kind, value = ''] = match;
  if (kind === 'not-run' && value.length >= 10) return { kind, reason: value };
  if (kind === 'checked-by' && value !== '') return { kind, path: value };
  if (kind === 'prints') return { kind, output: value };
  return null;
}

export function blocksOf(doc: string): DocBlock[] {
  const lines = readFileSync(join(PKG_DIR, doc), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (open === null) continue;
    const indent = open[1]?.length ?? 0;
    const fence = open[2] ?? '```';
    const body: string[] = [];
    let end = i + 1;
    for (; end < lines.length; end++) {
      const line = lines[end] ?? '';
      const trimmed = line.trim();
      if (trimmed.startsWith(fence[0]!.repeat(fence.length)) && /^(`+|~+)$/.test(trimmed)) break;
      body.push(line.slice(Math.min(indent, line.length - line.trimStart().length)));
    }
    // The comments just above the fence, nearest last.
    const comments: string[] = [];
    for (let j = i - 1; j >= 0; j--) {
      const above = (lines[j] ?? '').trim();
      if (above === '') continue;
      if (above.startsWith('<!--') && above.endsWith('-->')) {
        comments.unshift(above);
        continue;
      }
      break;
    }
    const markers = comments.map(parseMarker).filter((m): m is Marker => m !== null);
    const badMarkers = comments.filter((c) => parseMarker(c) === null && /^<!--\s*([a-z-]+:|runnable\b)/.test(c));
    blocks.push({
      doc,
      line: i + 1,
      language: (open[3] ?? '').toLowerCase(),
      code: body.length === 0 ? '' : `${body.join('\n')}\n`,
      markers,
      badMarkers,
    });
    i = end;
  }
  return blocks;
}

export function allBlocks(): DocBlock[] {
  return checkedDocuments().flatMap(blocksOf);
}

export const markerOf = <K extends Marker['kind']>(
  block: DocBlock,
  kind: K,
): Extract<Marker, { kind: K }> | undefined =>
  block.markers.find((m): m is Extract<Marker, { kind: K }> => m.kind === kind);

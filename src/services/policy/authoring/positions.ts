/**
 * JSON pointers → line:column (docs/design.md#policy-lint-bounds-before-ajv: ajv reports pointers only). jsonc-parser
 * gives every node's offset; it recurses, so it only runs once bounded-json.ts has bounded the size and the nesting.
 */
import { parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';

export interface Position {
  readonly line: number;
  readonly column: number;
}

export interface SourceMap {
  /** The position of the part a pointer names: a key where it names an object member, else the value. */
  readonly positionOf: (pointer: string) => Position;
  /** The position of an offset in the text. */
  readonly at: (offset: number) => Position;
  /** The first syntax error, if the text is not strict JSON. */
  readonly syntaxError: { readonly offset: number; readonly message: string } | null;
}

/** `/a~1b/0` → ['a/b', '0']. */
export const segmentsOf = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

const SYNTAX: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a key in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected "," (or a closing bracket)',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'expected the end of the file after the policy',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'malformed \\u escape',
  InvalidEscapeCharacter: 'malformed escape',
  InvalidCharacter: 'a control character inside a string must be escaped',
};

/** 1-based column of `offset` on the line starting at `lineStart`, in characters (code points), as editors count. */
export function columnOf(text: string, lineStart: number, offset: number): number {
  let column = 1;
  for (let i = lineStart; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) column++; // a low surrogate completes the character counted before it
  }
  return column;
}

/** Line and column of an offset without building the source map (the text may be too deep for it). */
export function flatPosition(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: columnOf(text, lineStart, offset) };
}

export function sourceMap(text: string): { map: SourceMap; root: Node | undefined } {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x0a) lineStarts.push(i + 1);
  const at = (offset: number): Position => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: columnOf(text, lineStarts[lo] ?? 0, offset) };
  };

  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  const syntaxError =
    first === undefined
      ? null
      : { offset: first.offset, message: SYNTAX[printParseErrorCode(first.error)] ?? 'not JSON' };

  const positionOf = (pointer: string): Position => {
    let node = root;
    let offset = 0;
    for (const segment of segmentsOf(pointer)) {
      if (node === undefined) break;
      offset = node.offset;
      if (node.type === 'object') {
        // The last member with that key: JSON.parse keeps the last of duplicate keys.
        const member = node.children?.findLast((p) => p.children?.[0]?.value === segment);
        if (member === undefined) break;
        offset = member.offset;
        node = member.children?.[1];
        continue;
      }
      if (node.type === 'array' && /^(0|[1-9][0-9]*)$/.test(segment)) {
        node = node.children?.[Number(segment)];
        if (node !== undefined) offset = node.offset;
        continue;
      }
      break;
    }
    return at(segmentsOf(pointer).length === 0 && root !== undefined ? root.offset : offset);
  };
  return { map: { positionOf, at, syntaxError }, root };
}

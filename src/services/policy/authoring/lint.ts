/**
 * Every problem of a policy in one run, each with its JSON pointer and line:column, sorted by
 * position. Used by start-up, reload and `policy:lint` alike, so they can never disagree.
 *
 * Order of the work (docs/design.md#policy-lint-bounds-before-ajv): size, encoding and nesting by flat scans; then
 * jsonc-parser (positions, syntax errors, keys written twice) and JSON.parse; then the schema and the semantic checks,
 * which run even when the schema fails.
 */
import { readFileSync, statSync } from 'node:fs';
import { getLocation } from 'jsonc-parser';
import type { Node } from 'jsonc-parser';
import type { PolicyDoc } from '../engine/document.js';
import { pointer } from '../engine/document.js';
import { MAX_POLICY_BYTES, MAX_POLICY_DEPTH, decodeBounded } from './bounded-json.js';
import { flatPosition, sourceMap } from './positions.js';
import type { Position } from './positions.js';
import type { PositionedProblem, Problem } from './problems.js';
import { checkSchema } from './schema.js';
import { semanticProblems } from './semantics.js';

export interface LintResult {
  /** Sorted by position; empty when the policy is valid. */
  readonly problems: PositionedProblem[];
  /** The document, when there is no problem. */
  readonly document: PolicyDoc | null;
}

const START: Position = { line: 1, column: 1 };

/** The pointer of the part at an offset; only the text up to it is parsed, so the nesting stays bounded. */
function pointerAt(text: string, offset: number): string {
  return pointer(...getLocation(text.slice(0, offset + 1), offset).path);
}

/** Keys written twice in one object: JSON.parse silently keeps the last, so a whole entry can vanish. */
function duplicateKeys(root: Node | undefined, at: (offset: number) => Position): Problem[] {
  const problems: Problem[] = [];
  const walk = (node: Node, path: string): void => {
    if (node.type === 'object') {
      const seen = new Map<string, number>();
      for (const member of node.children ?? []) {
        const key = String(member.children?.[0]?.value);
        const value = member.children?.[1];
        const first = seen.get(key);
        if (first !== undefined) {
          problems.push({
            pointer: `${path}${pointer(key)}`,
            kind: 'duplicate',
            message: `the key "${key.slice(0, 64)}" is written twice (first on line ${at(first).line}); JSON keeps only the last`,
          });
        } else {
          seen.set(key, member.offset);
        }
        if (value !== undefined) walk(value, `${path}${pointer(key)}`);
      }
    } else if (node.type === 'array') {
      (node.children ?? []).forEach((child, i) => walk(child, `${path}/${i}`));
    }
  };
  if (root !== undefined) walk(root, '');
  return problems;
}

export function lintPolicyBytes(bytes: Uint8Array): LintResult {
  const decoded = decodeBounded(bytes, MAX_POLICY_BYTES, MAX_POLICY_DEPTH);
  if (!decoded.ok) {
    const nested = decoded.offset > 0;
    // decodeBounded only reports an offset for the nesting, where the text is known to be UTF-8.
    const text = nested ? new TextDecoder().decode(bytes).replace(/^\ufeff/, '') : '';
    return {
      problems: [
        {
          pointer: nested ? pointerAt(text, decoded.offset) : '',
          kind: nested ? 'nesting' : 'file',
          message: nested ? `${decoded.problem} here (too deep to read safely)` : `the policy ${decoded.problem}`,
          ...(nested ? flatPosition(text, decoded.offset) : START),
        },
      ],
      document: null,
    };
  }
  const { text } = decoded;
  const { map, root } = sourceMap(text);
  if (map.syntaxError !== null) {
    const { offset, message } = map.syntaxError;
    return {
      problems: [
        { pointer: pointerAt(text, offset), kind: 'syntax', message: `not JSON: ${message}`, ...map.at(offset) },
      ],
      document: null,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      problems: [{ pointer: '', kind: 'syntax', message: `not JSON: ${(error as Error).message}`, ...START }],
      document: null,
    };
  }
  const schema = checkSchema(value);
  const found = [...duplicateKeys(root, map.at), ...(schema.ok ? [] : schema.problems), ...semanticProblems(value)];
  const problems = found
    .map((p) => ({ ...p, ...map.positionOf(p.pointer) }))
    // Array.prototype.sort is stable: problems at one position keep the order of the checks.
    .sort((a, b) => a.line - b.line || a.column - b.column);
  return { problems, document: problems.length === 0 ? (value as PolicyDoc) : null };
}

/** A file's problems, or why it cannot be read. */
export type LintOutcome = { ok: true; problems: PositionedProblem[] } | { ok: false; error: string };

export function lintFile(path: string): LintOutcome {
  try {
    // A huge file is refused without reading it all (a dump named by mistake).
    const size = statSync(path).size;
    if (size > MAX_POLICY_BYTES) {
      return {
        ok: true,
        problems: [
          {
            pointer: '',
            kind: 'file',
            message: `the policy is ${size} bytes, more than the ${MAX_POLICY_BYTES} allowed`,
            line: 1,
            column: 1,
          },
        ],
      };
    }
    return { ok: true, problems: lintPolicyBytes(readFileSync(path)).problems };
  } catch (error) {
    return { ok: false, error: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/**
 * Decision tables (policy/fixtures/*.json): read with the same bounds as policies and checked
 * against policy-schema/fixture.schema.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { PKG_DIR } from '../../../package-dir.js';
import { MAX_POLICY_DEPTH, decodeBounded } from './bounded-json.js';
import { flatPosition, sourceMap } from './positions.js';
import { describeProblem } from './problems.js';
import { describeAjvError } from './schema.js';

export const FIXTURE_SCHEMA_PATH = join(PKG_DIR, 'policy-schema', 'fixture.schema.json');
/** Tables of a large custom policy may be big; still bounded. */
const MAX_FIXTURE_BYTES = 16 * 1024 * 1024;

export interface AccessRowDoc {
  readonly role: string;
  readonly item: string;
  readonly visibility: string;
  readonly relation?: 'owner' | 'shared' | 'other';
  readonly user_id?: number;
  readonly owner?: number;
  readonly shared_with?: string;
  readonly action?: string;
  readonly expect?: 'allow' | 'deny';
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly check?: string;
  readonly note?: string;
}

export interface LimitRowDoc {
  readonly role: string;
  /** The caller, for limit rules that read user.id (default 10). */
  readonly user_id?: number;
  readonly limit: string;
  readonly value: number;
  readonly expect: 'pass' | 'fail';
  readonly check?: string;
  readonly note?: string;
}

export interface FixtureDoc {
  readonly description?: string;
  readonly access?: readonly AccessRowDoc[];
  readonly limits?: readonly LimitRowDoc[];
}

let validate: ValidateFunction | undefined;

/**
 * An ajv error of a table in words, at its pointer. A row's two either-or constraints (how the caller
 * is named, which form the actions take) get one sentence each; the errors inside their branches
 * would only repeat them.
 */
function describeRowError(error: ErrorObject): { pointer: string; message: string } | null {
  if (/\/(oneOf|anyOf)\/\d/.test(error.schemaPath)) return null;
  const pointer = error.instancePath;
  if (error.keyword === 'oneOf') {
    return {
      pointer,
      message:
        'name the caller either by "relation" or by "user_id" and "owner" (and optionally "shared_with"), one way only',
    };
  }
  if (error.keyword === 'anyOf') {
    return { pointer, message: 'give either "action" and "expect", or "allow" and/or "deny", one form only' };
  }
  const problem = describeAjvError(error, 'the table');
  return problem === null ? null : { pointer: problem.pointer, message: problem.message };
}

export type FixtureLoad = { ok: true; fixture: FixtureDoc } | { ok: false; problems: string[] };

/** Problems read `LINE:COLUMN: POINTER: MESSAGE`, as a policy's do (positions.ts), so editors can jump to them. */
export function parseFixture(bytes: Uint8Array): FixtureLoad {
  const decoded = decodeBounded(bytes, MAX_FIXTURE_BYTES, MAX_POLICY_DEPTH);
  if (!decoded.ok) {
    if (decoded.offset === 0) return { ok: false, problems: [`the table ${decoded.problem}`] };
    // An offset is only reported for the nesting, where the text is known to be UTF-8.
    const text = new TextDecoder().decode(bytes).replace(/^\ufeff/, '');
    const { line, column } = flatPosition(text, decoded.offset);
    return { ok: false, problems: [`${line}:${column}: the table ${decoded.problem} here (too deep to read safely)`] };
  }
  const { map } = sourceMap(decoded.text);
  if (map.syntaxError !== null) {
    const { line, column } = map.at(map.syntaxError.offset);
    return { ok: false, problems: [`${line}:${column}: the table is not JSON: ${map.syntaxError.message}`] };
  }
  const value: unknown = JSON.parse(decoded.text);
  // strictRequired is off: the row schema requires properties inside oneOf/anyOf branches.
  validate ??= new Ajv({ allErrors: true, strict: true, strictRequired: false, verbose: true }).compile(
    JSON.parse(readFileSync(FIXTURE_SCHEMA_PATH, 'utf8')) as object,
  );
  if (validate(value)) return { ok: true, fixture: value as FixtureDoc };
  const problems = (validate.errors ?? [])
    .map(describeRowError)
    .filter((p): p is { pointer: string; message: string } => p !== null)
    .map((p) => {
      const { line, column } = map.positionOf(p.pointer);
      return `${line}:${column}: ${describeProblem({ pointer: p.pointer, kind: 'schema', message: p.message })}`;
    });
  return { ok: false, problems: [...new Set(problems)] };
}

export function loadFixtureFile(path: string): FixtureLoad {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return { ok: false, problems: [`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  return parseFixture(bytes);
}

/**
 * The structural check: ajv against policy-schema/policy.schema.json (the file editors read too), with
 * ajv's errors put in words a policy author understands, each with the JSON pointer of the part at
 * fault (the key itself for an unknown or malformed key).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { PKG_DIR } from '../../../package-dir.js';
import { pointer } from '../engine/document.js';
import type { Problem, ProblemKind } from './problems.js';

export const POLICY_SCHEMA_PATH = join(PKG_DIR, 'policy-schema', 'policy.schema.json');

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled === undefined) {
    // strictRequired is off: a role limit requires properties inside if/then/else.
    const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, verbose: true });
    compiled = ajv.compile(JSON.parse(readFileSync(POLICY_SCHEMA_PATH, 'utf8')) as object);
  }
  return compiled;
}

// Values here come from JSON.parse, so they always serialise.
const shown = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 80));

/** One ajv error in words, or null for one another error already says; `whole` names the document. */
export function describeAjvError(error: ErrorObject, whole = 'the policy'): Problem | null {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const problem = (kind: ProblemKind, message: string, path = at): Problem => ({
    pointer: path,
    kind,
    message: path === '' ? `${whole} ${message}` : message,
  });
  switch (error.keyword) {
    case 'required':
      return problem('schema', `lacks "${String(params['missingProperty'])}"`);
    case 'additionalProperties': {
      const key = String(params['additionalProperty']);
      return problem('schema', `unknown key "${key.slice(0, 64)}"`, `${at}${pointer(key)}`);
    }
    case 'propertyNames': {
      const key = String(params['propertyName']);
      return problem('schema', `the key ${shown(key)} is not a valid name`, `${at}${pointer(key)}`);
    }
    case 'pattern':
      // The propertyNames error above already names a bad key.
      if (error.propertyName !== undefined) return null;
      return problem(
        'schema',
        `${shown(error.data)} is not a valid name (1 to 64 letters, digits, _ - . or :, starting with a letter or digit)`,
      );
    case 'not':
      if (error.propertyName !== undefined) return null;
      return problem(
        'reserved-name',
        `${shown(error.data)} is a reserved name (CASL treats "manage" and "all" as wildcards that would grant everything)`,
      );
    case 'uniqueItems': {
      const list = Array.isArray(error.data) ? (error.data as unknown[]) : [];
      const j = Number(params['j']);
      return problem('duplicate', `lists ${shown(list[j])} more than once`, `${at}/${Number(params['i'])}`);
    }
    case 'type':
      return problem(
        'schema',
        `must be ${params['type'] === 'object' || params['type'] === 'array' ? 'an' : 'a'} ${String(params['type'])}, not ${shown(error.data)}`,
      );
    case 'enum':
      return problem(
        'schema',
        `must be one of ${(params['allowedValues'] as unknown[]).map(shown).join(', ')}, not ${shown(error.data)}`,
      );
    case 'minItems':
      return problem('schema', 'must list at least one name');
    case 'minLength':
      return problem('schema', 'must not be empty');
    case 'false schema':
      return problem('schema', 'is not allowed beside "rule": a limit is either {"type", "limit"} or {"rule"}');
    case 'if':
      // The branch's own error (above) says what is wrong.
      return null;
    default:
      return problem('schema', error.message ?? error.keyword);
  }
}

export type SchemaCheck = { ok: true } | { ok: false; problems: Problem[] };

export function checkSchema(value: unknown): SchemaCheck {
  const validate = validator();
  if (validate(value)) return { ok: true };
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const error of validate.errors ?? []) {
    const problem = describeAjvError(error);
    const key = problem === null ? '' : `${problem.pointer}\u0000${problem.message}`;
    if (problem === null || seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return { ok: false, problems };
}

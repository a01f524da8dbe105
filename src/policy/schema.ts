/**
 * The structural check: ajv against policy-schema/policy.schema.json (the file editors read too), with
 * ajv's errors put in words a policy author understands, each prefixed by its JSON pointer.
 * Positions (line:column) come with `policy:lint`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { PKG_DIR } from '../config/paths.js';
import type { PolicyDoc } from './document.js';

export const POLICY_SCHEMA_PATH = join(PKG_DIR, 'policy-schema', 'policy.schema.json');

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled === undefined) {
    const ajv = new Ajv({ allErrors: true, strict: true, verbose: true });
    compiled = ajv.compile(JSON.parse(readFileSync(POLICY_SCHEMA_PATH, 'utf8')) as object);
  }
  return compiled;
}

const where = (path: string): string => (path === '' ? 'the policy' : path);
// Values here come from JSON.parse, so they always serialise.
const shown = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 80));

function describe(error: ErrorObject): string | null {
  const at = where(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${at}: lacks "${String(params['missingProperty'])}"`;
    case 'additionalProperties': {
      const key = String(params['additionalProperty']);
      const hint = key === 'rules' && error.instancePath === '' ? ' (this version has no rule language)' : '';
      return `${at}: unknown key "${key}"${hint}`;
    }
    case 'propertyNames':
      return `${at}: key ${shown(params['propertyName'])} is not a valid name`;
    case 'pattern':
      // The propertyNames error above already names a bad key.
      if (error.propertyName !== undefined) return null;
      return `${at}: ${shown(error.data)} is not a valid name (1 to 64 letters, digits, _ - . or :, starting with a letter or digit)`;
    case 'not':
      return `${at}: ${shown(error.data)} is a reserved name (CASL treats "manage" and "all" as wildcards that would grant everything)`;
    case 'uniqueItems': {
      const list = Array.isArray(error.data) ? (error.data as unknown[]) : [];
      return `${at}: lists ${shown(list[Number(params['j'])])} more than once`;
    }
    case 'type':
      return `${at}: must be ${params['type'] === 'object' ? 'an' : 'a'} ${String(params['type'])}, not ${shown(error.data)}`;
    case 'enum':
      return `${at}: must be one of ${(params['allowedValues'] as unknown[]).map(shown).join(', ')}, not ${shown(error.data)}`;
    default:
      return `${at}: ${error.message ?? error.keyword}`;
  }
}

export type SchemaCheck = { ok: true; document: PolicyDoc } | { ok: false; problems: string[] };

export function checkSchema(value: unknown): SchemaCheck {
  const validate = validator();
  if (validate(value)) return { ok: true, document: value as PolicyDoc };
  const problems = (validate.errors ?? []).map(describe).filter((p): p is string => p !== null);
  return { ok: false, problems: [...new Set(problems)] };
}

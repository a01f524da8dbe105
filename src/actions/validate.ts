/**
 * Request validation: ajv checks each action's TypeBox schema; when a body fails, we list one problem
 * per item (`missing`, `incorrect type`, `invalid value`) with the type the item needs.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import type { TObject, TSchema } from '@sinclair/typebox';
import { isBoundedDict } from '../domain/json-dict.js';
import { isSafeText } from '../protocol/index.js';
import type { Problem } from '../protocol/index.js';
import { isIpAddress } from '../protocol/addresses.js';

export type TypeLabel = 'str' | 'int' | 'float' | 'bool' | 'dict' | 'list' | 'None';

const LABELS: Readonly<Record<string, readonly TypeLabel[]>> = {
  string: ['str'],
  integer: ['int'],
  number: ['int', 'float'],
  boolean: ['bool'],
  object: ['dict'],
  array: ['list'],
  null: ['None'],
};

/** The wire type of a JSON value, in the reference's names (`true` is a bool, not an int). */
export function typeOf(value: unknown): TypeLabel {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

function allowedTypes(schema: TSchema): TypeLabel[] {
  const record = schema as { type?: string | string[]; anyOf?: TSchema[] };
  if (Array.isArray(record.anyOf)) return [...new Set(record.anyOf.flatMap(allowedTypes))];
  const types = record.type === undefined ? [] : [record.type].flat();
  return types.flatMap((t) => LABELS[t] ?? []);
}

function displayType(types: readonly TypeLabel[]): string | TypeLabel[] {
  // `number` admits ints and floats; name it once, as the reference does.
  const shown = types.includes('float') ? types.filter((t) => t !== 'int') : [...types];
  return shown.length === 1 ? (shown[0] ?? 'str') : shown;
}

export function createAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: false, coerceTypes: false, useDefaults: false });
  ajv.addFormat('text', { type: 'string', validate: isSafeText });
  ajv.addFormat('ip', { type: 'string', validate: isIpAddress });
  ajv.addKeyword({
    keyword: 'x-json-dict',
    type: 'object',
    schemaType: 'boolean',
    validate: (_: boolean, data: unknown) => isBoundedDict(data),
  });
  return ajv;
}

export interface BodyValidator {
  /** Null when the body is valid (then it matches the schema's type). */
  problems(body: Readonly<Record<string, unknown>>): Problem[] | null;
}

/**
 * Compiled at the action's first request, not at start: ajv's code generation for ~50 actions was a
 * fifth of the start-up CPU, and most servers only ever see a few actions. Every schema still compiles
 * in the tests of its action.
 */
export function compileBody(ajv: Ajv, schema: TObject): BodyValidator {
  let whole: ValidateFunction | null = null;
  const items = Object.entries(schema.properties).map(([name, itemSchema]) => ({
    name,
    required: (schema.required ?? []).includes(name),
    types: allowedTypes(itemSchema),
    check: null as ValidateFunction | null,
    schema: itemSchema,
  }));
  return {
    problems(body) {
      whole ??= ajv.compile(schema);
      if (whole(body)) return null;
      const problems: Problem[] = [];
      for (const item of items) {
        const present = Object.prototype.hasOwnProperty.call(body, item.name);
        if (!present) {
          if (item.required)
            problems.push({ param: item.name, problem: 'missing', required_type: displayType(item.types) });
          continue;
        }
        const value = body[item.name];
        const type = typeOf(value);
        if (!item.types.includes(type)) {
          problems.push({ param: item.name, problem: 'incorrect type', required_type: displayType(item.types) });
          continue;
        }
        item.check ??= ajv.compile(item.schema);
        if (!item.check(value)) {
          problems.push({ param: item.name, problem: 'invalid value', required_type: displayType(item.types) });
        }
      }
      return problems;
    },
  };
}

/**
 * Dispatch: validate the body against the action's schema, run the handler, and shape the decrypted
 * response (docs/design.md#the-decrypted-response). The one place that maps a failure code to `failure_reason` and the
 * end-user message; the transport maps it to the HTTP status (the seal step, http/envelope.ts).
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import type { TObject, TSchema } from '@sinclair/typebox';
import { failures, UnavailableError } from '../domain/errors.js';
import { isBoundedDict } from '../domain/json-dict.js';
import { isIpAddress } from '../protocol/addresses.js';
import { actionNames, actionSpecs, isSafeText } from '../protocol/index.js';
import type { ActionInput, ActionName, ActionSpec, FailureCode, Problem, RequestId } from '../protocol/index.js';
import type { Deps, Meta } from './define.js';
import { registry } from './registry.js';

/**
 * Request validation: ajv checks each action's TypeBox schema; when a body fails, we list one problem
 * per item (`missing`, `incorrect type`, `invalid value`) with the type the item needs.
 */

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

export type ResponsePayload =
  | { success: true; response: object; messages: string[]; reqid: RequestId }
  | { success: false; response: object; messages: string[]; reqid: RequestId; failure_reason: string };

export interface Reply {
  readonly payload: ResponsePayload;
  /** The failure code, for the request log and the HTTP status; null on success. */
  readonly code: FailureCode | null;
}

export interface Dispatcher {
  run(name: ActionName, body: Readonly<Record<string, unknown>>, meta: Omit<Meta, 'action'>): Promise<Reply>;
}

const UNAVAILABLE_MESSAGE = 'The service is unavailable right now. Please try again in a little while.';

/** A failure reply for requests that never reached an action's own code (or that it refused). */
export function failureReply(
  code: FailureCode,
  messages: readonly string[],
  reqid: RequestId,
  items: object = {},
  problems?: readonly Problem[],
): Reply {
  const failure_reason = failures[code].reason;
  return {
    code,
    payload: {
      success: false,
      response: { ...items, failure_reason, ...(problems === undefined ? {} : { problems }) },
      messages: [...messages],
      reqid,
      failure_reason,
    },
  };
}

export const unavailableReply = (code: 'db_unavailable' | 'busy', reqid: RequestId): Reply =>
  failureReply(code, [UNAVAILABLE_MESSAGE], reqid);

/** What a failure's reason and message add to the reply's plaintext (the reason is written twice). */
const failureBytes = (code: FailureCode, message: string): number =>
  2 * Buffer.byteLength(JSON.stringify(failures[code].reason)) + Buffer.byteLength(JSON.stringify(message));

/**
 * For the actions declared with `padFailures`: the plaintext size their longest failure needs, so that
 * a `pad` of spaces brings every other failure to it (the reply size must not tell the reason).
 */
function padTargets(): Map<ActionName, number> {
  const targets = new Map<ActionName, number>();
  for (const name of actionNames) {
    const spec: ActionSpec = actionSpecs[name];
    if (spec.padFailures !== true) continue;
    const messages: Partial<Record<FailureCode, string>> = registry[name].messages.failures;
    const sizes = spec.failures.map((code) => failureBytes(code, messages[code] ?? ''));
    targets.set(name, Math.max(...sizes));
  }
  return targets;
}

export function createDispatcher(deps: Deps): Dispatcher {
  const ajv = createAjv();
  const padding = padTargets();
  const validators = new Map<ActionName, BodyValidator>(
    actionNames.map((name) => [name, compileBody(ajv, actionSpecs[name].input)]),
  );

  // K ties the registry entry to the input type its handler expects.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  async function run<K extends ActionName>(
    name: K,
    body: Readonly<Record<string, unknown>>,
    request: Omit<Meta, 'action'>,
  ): Promise<Reply> {
    const meta: Meta = { ...request, action: name };
    const action = registry[name];
    const problems = validators.get(name)?.problems(body) ?? null;
    if (problems !== null) {
      return failureReply('invalid_params', [`request '${name}' has invalid parameters`], meta.reqid, {}, problems);
    }
    let result;
    try {
      result = await action.handle(deps, body as ActionInput<K>, meta);
      // The events this request recorded reach the user's history before the reply (docs/design.md#security-history).
      const recorded = deps.audit.pending?.();
      if (recorded) await recorded;
    } catch (error) {
      if (error instanceof UnavailableError) return unavailableReply(error.code, meta.reqid);
      throw error;
    }
    if (result.ok) {
      return {
        code: null,
        payload: {
          success: true,
          response: result.value,
          messages: [...(result.messages ?? [action.messages.ok])],
          reqid: meta.reqid,
        },
      };
    }
    const message =
      result.code === 'invalid_params'
        ? `request '${name}' has invalid parameters`
        : result.code === 'db_unavailable' || result.code === 'busy'
          ? UNAVAILABLE_MESSAGE
          : (action.messages.failures[result.code] ?? 'The request failed.');
    const target = padding.get(name);
    const items =
      target === undefined || result.messages !== undefined
        ? result.items
        : { ...result.items, pad: ' '.repeat(Math.max(0, target - failureBytes(result.code, message))) };
    return failureReply(result.code, result.messages ?? [message], meta.reqid, items, result.problems);
  }

  return { run };
}

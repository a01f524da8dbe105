/**
 * Bounds of one condition (docs/design.md#rules-and-conditions, docs/design.md#json-logic-our-own-evaluator):
 * json-logic-js overflows the stack on a 5,000-deep rule, and a policy is read on every reload. Checked first, by an
 * explicit stack.
 */
import { pointer } from '../document.js';

export const MAX_CONDITION_DEPTH = 16;
export const MAX_CONDITION_NODES = 256;

export interface ConditionSize {
  /** Every JSON value of the condition (operations, arguments, literals), counted up to MAX + 1. */
  readonly nodes: number;
  /** Pointer (relative) of the first operation nested deeper than MAX_CONDITION_DEPTH, if any. */
  readonly tooDeepAt: string | null;
}

/**
 * Depth counts operations: `{"===": [{"var": "action"}, "view"]}` is 2 deep (=== then var); argument
 * arrays and literal arrays add nothing. Nodes count every operation and every value, but not the
 * array that holds an operation's arguments (`{"===": [{"var": "action"}, "view"]}` has 4).
 */
export function measureCondition(condition: unknown): ConditionSize {
  const stack: Array<{ value: unknown; at: string; depth: number; args?: true }> = [
    { value: condition, at: '', depth: 0 },
  ];
  let nodes = 0;
  let tooDeepAt: string | null = null;
  for (let next = stack.pop(); next !== undefined && nodes <= MAX_CONDITION_NODES; next = stack.pop()) {
    const { value, at, depth, args } = next;
    if (args === undefined) nodes++;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i] as unknown, at: `${at}/${i}`, depth });
    } else if (value !== null && typeof value === 'object') {
      const inner = depth + 1;
      if (inner > MAX_CONDITION_DEPTH && tooDeepAt === null) tooDeepAt = at;
      const entries: Array<[string, unknown]> = Object.entries(value);
      for (const [key, child] of entries.reverse()) {
        stack.push({
          value: child,
          at: `${at}${pointer(key)}`,
          depth: inner,
          ...(Array.isArray(child) ? { args: true as const } : {}),
        });
      }
    }
  }
  return { nodes, tooDeepAt };
}

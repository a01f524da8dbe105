/**
 * The permissions policy as written (policy-schema/policy.schema.json): the type a document has once
 * the schema accepted it. Compilation (compile.ts) turns it into Maps and CASL abilities; nothing
 * looks names up in these plain objects at check time (docs/design.md#prototype-keys).
 */

export interface LimitTypeDoc {
  readonly type: 'int' | 'float';
  readonly operator: 'lt' | 'gt';
}

export interface ItemPolicyDoc {
  readonly valid_role_actions: readonly string[];
  readonly valid_visibilities: readonly string[];
  readonly invalid_roles: readonly string[];
}

/** A limit of a role: a kind and a number, or a JSON-Logic rule the value must satisfy. */
export interface CompareLimitDoc {
  readonly type: string;
  readonly limit: number;
}
export interface RuleLimitDoc {
  readonly rule: unknown;
}
export type RoleLimitDoc = CompareLimitDoc | RuleLimitDoc;

/** A rule of the DSL (docs/design.md#rules-and-conditions). */
export interface RuleDoc {
  readonly effect: 'allow' | 'deny';
  readonly roles: readonly string[];
  readonly items: readonly string[];
  readonly actions: readonly string[];
  readonly visibilities?: readonly string[];
  /** A JSON-Logic condition (checked by the condition language before compilation). */
  readonly when?: unknown;
  readonly reason: string;
}

export interface RolePolicyDoc {
  readonly limits?: Readonly<Record<string, RoleLimitDoc>>;
  readonly can_own_items: readonly string[];
  readonly allowed_actions_for_owned: readonly string[];
  readonly allowed_actions_for_other: Readonly<Record<string, readonly string[]>>;
}

export interface PolicyDoc {
  readonly roles: readonly string[];
  readonly items: readonly string[];
  readonly actions: readonly string[];
  readonly visibilities: readonly string[];
  readonly limits: Readonly<Record<string, LimitTypeDoc>>;
  readonly item_policy: Readonly<Record<string, ItemPolicyDoc>>;
  readonly role_policy: Readonly<Record<string, RolePolicyDoc>>;
  readonly rules?: readonly RuleDoc[];
}

/**
 * Roles every policy must have: the fixed accounts and new users hold them
 * (docs/design.md#fixed-accounts-and-new-users, docs/design.md#the-policy-in-force).
 */
export const REQUIRED_ROLES = ['superuser', 'authenticated', 'anonymous', 'locked'] as const;

/**
 * CASL's wildcards: an action `manage` or an item `all` would grant everything (docs/design.md#casl-reserved-words).
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['manage', 'all']);

/** Own entries of a JSON object, in document order (never inherited ones). */
export function entriesOf<T>(record: Readonly<Record<string, T>> | undefined): Array<[string, T]> {
  return record === undefined ? [] : Object.entries(record);
}

/** JSON pointer escaping of one path segment (RFC 6901). */
export function pointer(...segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * The compiled policy: every lookup a Map or a Set (a role named `constructor` never reaches
 * Object.prototype, docs/design.md#prototype-keys), one CASL ability per role, typed limits. Built once at start-up
 * (compile.ts) and only read afterwards.
 */
import type { Ability } from '@casl/ability';
import type { Facts, Predicate } from './logic/language.js';
import type { Relation } from './relation.js';

/**
 * What a check decides on: the request's item, with the caller's relation computed beforehand, and
 * the facts a rule's condition reads (logic/facts.ts).
 */
export interface AccessSubject {
  readonly item: string;
  readonly visibility: string;
  readonly relation: Relation;
  readonly facts: Facts;
}

/** Why a rule allows: the check, the policy parts (JSON pointers) and a sentence. */
export interface Grant {
  readonly check: 'allowed-for-owned' | 'allowed-for-other';
  readonly policy: readonly string[];
  readonly reason: string;
}

/**
 * A CASL rule's condition. Base rules (the reference's tables) test only the subject's relation and
 * visibility. Rules of the DSL (docs/design.md#rules-and-conditions) test the visibility and their compiled condition;
 * deny rules are CASL inverted rules. One matcher evaluates both (ability.ts).
 */
export interface BaseCondition {
  readonly kind: 'base';
  readonly relations: ReadonlySet<Relation>;
  readonly visibilities: ReadonlySet<string>;
  readonly grant: Grant;
}

/** One rule of the policy's `rules`, as its explanation names it. */
export interface PolicyRule {
  readonly effect: 'allow' | 'deny';
  /** JSON pointer of the rule, e.g. `/rules/2`. */
  readonly pointer: string;
  readonly reason: string;
}

export interface RuleCondition {
  readonly kind: 'rule';
  readonly visibilities: ReadonlySet<string>;
  /** null: the rule has no `when`, so it always applies. */
  readonly when: Predicate | null;
  readonly rule: PolicyRule;
}

export type AccessCondition = BaseCondition | RuleCondition;

/** Subjects are items by name (the rules) or AccessSubject objects (the checks). */
export type PolicyAbility = Ability<[string, string | AccessSubject], AccessCondition>;

export interface ItemRules {
  readonly validActions: ReadonlySet<string>;
  readonly validVisibilities: ReadonlySet<string>;
  readonly invalidRoles: ReadonlySet<string>;
}

export interface RoleRules {
  readonly canOwn: ReadonlySet<string>;
  readonly owned: ReadonlySet<string>;
  /** By visibility; a visibility the policy leaves out allows nothing. */
  readonly other: ReadonlyMap<string, ReadonlySet<string>>;
}

/** One limit of one role: `compare` is the reference's kind (§4.4), `rule` a JSON-Logic condition. */
export interface CompareLimit {
  readonly kind: 'compare';
  readonly name: string;
  /** The limit kind's name (the top-level `limits` key). */
  readonly limitType: string;
  readonly numeric: 'int' | 'float';
  readonly operator: 'lt' | 'gt';
  readonly limit: number;
  /** JSON pointers of the role's limit and of its kind. */
  readonly policy: readonly string[];
}

export interface RuleLimit {
  readonly kind: 'rule';
  readonly name: string;
  /** Passes when the condition holds for the request (value, limit_name, user.id, user.role). */
  readonly passes: Predicate;
  /** JSON pointer of the rule. */
  readonly policy: readonly string[];
}

export type CompiledLimit = CompareLimit | RuleLimit;

export interface CompiledPolicy {
  /** SHA-256 of the file's bytes, to say in logs which policy decided. */
  readonly sha256: string;
  readonly roles: ReadonlySet<string>;
  readonly items: ReadonlySet<string>;
  readonly actions: ReadonlySet<string>;
  readonly visibilities: ReadonlySet<string>;
  readonly itemPolicy: ReadonlyMap<string, ItemRules>;
  readonly rolePolicy: ReadonlyMap<string, RoleRules>;
  readonly abilities: ReadonlyMap<string, PolicyAbility>;
  readonly limits: ReadonlyMap<string, ReadonlyMap<string, CompiledLimit>>;
  /** The policy's rules, in document order (for tools; checks go through the abilities). */
  readonly rules: readonly PolicyRule[];
}

/** Where handlers get the policy in force: a reload (SIGHUP, reload.ts) swaps what `current` returns. */
export interface PolicySource {
  current(): CompiledPolicy;
}

/** A policy that never changes (tests and tools); the server uses a swappable one (reload.ts). */
export function fixedPolicy(policy: CompiledPolicy): PolicySource {
  return { current: () => policy };
}

/**
 * Reading a policy whose structure may be wrong (lint reports every problem in one run): guards that
 * take only what has the expected shape, and own properties only (never inherited ones, docs/design.md#prototype-keys).
 */
import type { Problem } from './problems.js';

export type DeclaredKind = 'role' | 'item' | 'action' | 'visibility' | 'limit kind';
/** The declared names of each kind; null when the declaration itself is unreadable. */
export type Declared = Readonly<Record<DeclaredKind, ReadonlySet<string> | null>>;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export const recordOf = (value: unknown): Record<string, unknown> | null => (isRecord(value) ? value : null);

/** The strings of a list, or null when it is not a list. */
export function names(value: unknown): Set<string> | null {
  if (!Array.isArray(value)) return null;
  return new Set(value.filter((v): v is string => typeof v === 'string'));
}

/** The strings of a list, in order; [] when it is not a list. */
export const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

const PLURAL: Record<DeclaredKind, string> = {
  role: 'roles',
  item: 'items',
  action: 'actions',
  visibility: 'visibilities',
  'limit kind': 'limits',
};

export interface Referrer {
  /** Reports `name` at `at` when it is not a declared name of `kind`. */
  readonly refer: (kind: DeclaredKind, name: unknown, at: string) => void;
  /** `refer` for every element of a list (nothing when it is not a list). */
  readonly referAll: (kind: DeclaredKind, list: unknown, at: string) => void;
}

/** `refer` reports a name that is not declared; nothing when that kind of declaration is unreadable. */
export function referrer(declared: Declared, problems: Problem[]): Referrer {
  const refer = (kind: DeclaredKind, name: unknown, at: string): void => {
    const known = declared[kind];
    if (known === null || typeof name !== 'string' || known.has(name)) return;
    const a = /^[aeiou]/.test(kind) ? 'an' : 'a';
    problems.push({
      pointer: at,
      kind: 'reference',
      message: `"${name}" is not ${a} ${kind} declared in ${PLURAL[kind]}`,
    });
  };
  const referAll = (kind: DeclaredKind, list: unknown, at: string): void => {
    if (Array.isArray(list)) list.forEach((name, i) => refer(kind, name, `${at}/${i}`));
  };
  return { refer, referAll };
}

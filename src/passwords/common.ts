/**
 * The most common passwords: the first 10,000 of the ranked list that zxcvbn-ts maintains (built from
 * the same 10-million-password corpus as SecLists' top-10000 list, which the reference bundles).
 * Loaded on first use.
 */
import { dictionary } from '@zxcvbn-ts/language-common';

const TOP = 10_000;
let common: ReadonlySet<string> | null = null;

export function isCommonPassword(lowercased: string): boolean {
  common ??= new Set(dictionary['passwords-common'].slice(0, TOP));
  return common.has(lowercased);
}

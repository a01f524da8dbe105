/**
 * `target_sharedwith`: comma-separated user ids (docs/design.md#access-and-limit-checks). Blanks around ids and empty
 * entries are ignored; an empty list or `none` (any case) means nobody; at most 1,000 ids, each a
 * database id. Anything else is refused as an invalid value rather than guessed at.
 */
import { MAX_ID } from '../../../protocol/index.js';

export const MAX_SHARED_WITH = 1000;

export type SharedWith = { ok: true; ids: number[] } | { ok: false; problem: string };

export function parseSharedWith(text: string): SharedWith {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'none') return { ok: true, ids: [] };
  const ids = new Set<number>();
  let count = 0;
  for (const entry of trimmed.split(',')) {
    const digits = entry.trim();
    if (digits === '') continue;
    if (!/^[0-9]{1,10}$/.test(digits)) return { ok: false, problem: `"${digits.slice(0, 20)}" is not a user id` };
    const id = Number(digits);
    if (id < 1 || id > MAX_ID) return { ok: false, problem: `${digits} is not a user id (1…${MAX_ID})` };
    if (++count > MAX_SHARED_WITH) return { ok: false, problem: `more than ${MAX_SHARED_WITH} user ids` };
    ids.add(id);
  }
  return { ok: true, ids: [...ids] };
}

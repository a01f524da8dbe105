/**
 * Datetimes on the wire (docs/design.md#datetimes-on-the-wire). Out: ISO 8601 UTC with microseconds and an offset,
 * `2026-11-22T01:41:29.123000+00:00`, which JavaScript and Python's `fromisoformat` both read.
 * In: any ISO 8601 date-time; no offset means UTC.
 */

export function formatDateTime(ms: number): string {
  // toISOString always ends in 'Z': cut it rather than run a regex on every date of every reply.
  return `${new Date(ms).toISOString().slice(0, -1)}000+00:00`;
}

/** A stored time that may be unset: null stays null. */
export function formatOptionalDateTime(ms: number | null): string | null {
  return ms === null ? null : formatDateTime(ms);
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Milliseconds since the epoch, or null when the text is not an ISO 8601 date-time. */
export function parseDateTime(text: string): number | null {
  const m = ISO.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const base = Date.UTC(year, month - 1, day, hour, minute, second, Number((frac + '000').slice(0, 3)));
  // Date.UTC rolls 31 February over into March: refuse such dates.
  if (new Date(base).getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return base - offsetMinutes * 60_000;
}

/**
 * The yardsticks of a run and the ratios to them. The floor and the hash limit are each measured twice,
 * at the start and at the end of the run, and the less disturbed measurement is the yardstick: on a
 * shared machine a neighbour (or the run's own previous server still exiting) only ever adds CPU to
 * a measurement, so the least CPU is the closest to the true cost. It is also the stricter yardstick
 * for authsvc: a lower floor makes every ratio larger, a higher hash limit every share smaller.
 */
import type { BenchAction } from './actions.js';
import { HASH_BOUND } from './actions.js';
import type { HashLimit } from './hash-limit.js';
import type { Point } from './measure.js';
import type { ActionPoint } from './report.js';

/** An action's measured point before it is set against the floors and the hash limit. */
export type RawActionPoint = Point & { readonly action: BenchAction };

export interface Floors {
  readonly bare: readonly Point[];
  readonly read: readonly Point[];
  readonly write: readonly Point[];
}

/** At each concurrency, the floor point with the least server CPU per request. */
export function leastFloor(...measured: ReadonlyArray<readonly Point[]>): Point[] {
  const least = new Map<number, Point>();
  for (const points of measured)
    for (const point of points) {
      const known = least.get(point.concurrency);
      if (known === undefined || point.server_cpu_us < known.server_cpu_us) least.set(point.concurrency, point);
    }
  return [...least.values()];
}

/**
 * The highest hash limit of the measurements: the least CPU of one verify alone, and the most the
 * hashes alone reached with every core verifying (with that measurement's CPU per verify).
 */
export function highestHashLimit(first: HashLimit, ...others: readonly HashLimit[]): HashLimit {
  const all = [first, ...others];
  const alone = all.reduce((a, b) => (b.verifyCpuMs < a.verifyCpuMs ? b : a));
  const parallel = all.reduce((a, b) => (b.parallelPerSecond > a.parallelPerSecond ? b : a));
  return {
    ...alone,
    parallelPerSecond: parallel.parallelPerSecond,
    parallelVerifyCpuMs: parallel.parallelVerifyCpuMs,
  };
}

const ratio = (value: number, of: number | undefined): number | null => (of ? Number((value / of).toFixed(2)) : null);

/** The point with its ratios to the floors at its concurrency and, for password checks, its shares of the hash limit. */
export function judged(point: RawActionPoint, floors: Floors, hashLimit: HashLimit): ActionPoint {
  const cpuOf = (points: readonly Point[]): number | undefined =>
    points.find((f) => f.concurrency === point.concurrency)?.server_cpu_us;
  const hashBound = HASH_BOUND.has(point.action);
  // The floor that also does this action's kind of database work: a write for session-new, a read for the rest.
  const dbFloor = hashBound ? undefined : cpuOf(point.action === 'session-new' ? floors.write : floors.read);
  return {
    ...point,
    floor_ratio: ratio(point.server_cpu_us, cpuOf(floors.bare)),
    db_floor_ratio: ratio(point.server_cpu_us, dbFloor),
    hash_share: hashBound ? Number((point.rps / hashLimit.perSecond).toFixed(3)) : null,
    parallel_hash_share: hashBound ? Number((point.rps / hashLimit.parallelPerSecond).toFixed(3)) : null,
  };
}

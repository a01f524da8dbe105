/** What `/health` says about the worker processes (docs/design.md#health-and-echo: `"workers": {…}`). */

export type WorkerState = 'starting' | 'up' | 'restarting' | 'stopping';

export interface WorkerEntry {
  /** The worker's place, 1…N; a restarted worker takes the place of the one that died. */
  readonly slot: number;
  readonly pid: number | null;
  readonly state: WorkerState;
  /** Restarts of this slot since the primary started. */
  readonly restarts: number;
}

export interface WorkersReport {
  readonly expected: number;
  /** Workers up and serving. */
  readonly alive: number;
  readonly restarts: number;
  readonly list: readonly WorkerEntry[];
}

/** `--workers 1`: the one process serves by itself. */
export function singleProcessReport(pid: number): WorkersReport {
  return { expected: 1, alive: 1, restarts: 0, list: [{ slot: 1, pid, state: 'up', restarts: 0 }] };
}

/** The report of the primary's table of slots. */
export function reportOf(list: readonly WorkerEntry[]): WorkersReport {
  return {
    expected: list.length,
    alive: list.filter((w) => w.state === 'up').length,
    restarts: list.reduce((sum, w) => sum + w.restarts, 0),
    list,
  };
}

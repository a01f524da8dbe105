/**
 * `--cpu-prof` writes one profile per process for its whole life (start-up, fixtures, warm-up, every
 * action). The bench cuts it into the measured windows: V8 stamps samples with the monotonic clock
 * that `process.hrtime` reads, in µs, so a window noted by the load generator selects the server's
 * samples of that window exactly. Each cut is a valid .cpuprofile (Chrome DevTools, speedscope).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  hitCount?: number;
  readonly [key: string]: unknown;
}

interface CpuProfile {
  readonly nodes: ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: number[];
  readonly timeDeltas: number[];
}

export interface Window {
  /** A file-name-safe label, e.g. `sqlite-w1-session-exists-c16`. */
  readonly label: string;
  /** Monotonic µs (process.hrtime.bigint() / 1000). */
  readonly fromUs: number;
  readonly toUs: number;
}

export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** The samples of `profile` taken within [fromUs, toUs], as a profile of its own. */
export function cutProfile(profile: CpuProfile, fromUs: number, toUs: number): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  const hits = new Map<number, number>();
  let at = profile.startTime;
  let last = fromUs;
  profile.samples.forEach((node, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) return;
    samples.push(node);
    timeDeltas.push(at - last);
    last = at;
    hits.set(node, (hits.get(node) ?? 0) + 1);
  });
  const nodes = profile.nodes.map((node) => ({ ...node, hitCount: hits.get(node.id) ?? 0 }));
  return { nodes, startTime: fromUs, endTime: toUs, samples, timeDeltas };
}

/**
 * Cuts every profile in `rawDir` (one per server process) into `windows`, written to `outDir` as
 * `<label>.<pid>.cpuprofile`; the whole profile is kept as `<prefix>-whole.<pid>.cpuprofile` (start-up
 * included). Returns the files written.
 */
export function cutProfiles(rawDir: string, outDir: string, prefix: string, windows: readonly Window[]): string[] {
  const written: string[] = [];
  for (const file of readdirSync(rawDir).filter((name) => name.endsWith('.cpuprofile'))) {
    // Node names them CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile
    const pid = file.split('.')[3] ?? 'process';
    const text = readFileSync(join(rawDir, file), 'utf8');
    const profile = JSON.parse(text) as CpuProfile;
    const whole = join(outDir, `${prefix}-whole.${pid}.cpuprofile`);
    writeFileSync(whole, text);
    written.push(whole);
    for (const window of windows) {
      const cut = cutProfile(profile, window.fromUs, window.toUs);
      if (cut.samples.length === 0) continue; // e.g. the cluster primary, idle in that window
      const path = join(outDir, `${window.label}.${pid}.cpuprofile`);
      writeFileSync(path, JSON.stringify(cut));
      written.push(path);
    }
  }
  return written;
}

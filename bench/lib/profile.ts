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
  readonly callFrame?: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
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

/** Where a frame's code lives: a package, a part of authsvc, Node's internals, or V8's own buckets. */
export function partOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1] ?? url;
  const own = /\/(?:dist|src)\/([^/]+)(?:\/|\.js|\.ts)/.exec(url);
  if (own) return `authsvc ${own[1] ?? ''}`.replace(/\.(js|ts)$/, '');
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  return url.split('/').slice(-1)[0] ?? url;
}

const share = (part: number, whole: number): string => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;

/** A frame's file, short: `store/hot-reads.js`, `koa/lib/application.js`, `node:_http_server`. */
function fileOf(url: string): string {
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/(.+)$/.exec(url);
  if (pkg) return pkg[1] ?? url;
  const own = /\/(?:dist|src)\/(.+)$/.exec(url);
  return own ? (own[1] ?? url) : (url.split('/').slice(-1)[0] ?? url);
}

/** Self time (idle excluded) by part and the top functions of one (cut) profile, as Markdown lines. */
export function summarise(profile: CpuProfile, top = 12): string[] {
  const byPart = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    const frame = node.callFrame ?? { functionName: '(unknown)', url: '', lineNumber: 0 };
    if (hits === 0 || frame.functionName === '(idle)') continue;
    total += hits;
    const part = partOf(frame.url, frame.functionName);
    byPart.set(part, (byPart.get(part) ?? 0) + hits);
    const where = frame.url === '' ? part : `${fileOf(frame.url)}:${frame.lineNumber + 1}`;
    const name = `${frame.functionName || '(anonymous)'} — ${where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  }
  const sorted = (map: Map<string, number>): [string, number][] => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `busy samples ${total} of ${profile.samples.length}; self time by part: ` +
      sorted(byPart)
        .map(([part, hits]) => `${part} ${share(hits, total)}`)
        .join(', '),
    '',
    ...sorted(byFunction).map(([name, hits]) => `- ${share(hits, total)} ${name}`),
  ];
}

/** profiles/summary.md: for each cut profile, where its self time went. */
export function writeSummary(outDir: string, files: readonly string[]): void {
  const lines = ['# Where the server CPU went, per measured window (self time)', ''];
  for (const file of files.filter((f) => !f.includes('-whole.')).sort()) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    lines.push(`## ${file.split('/').slice(-1)[0] ?? file}`, '', ...summarise(profile), '');
  }
  writeFileSync(join(outDir, 'summary.md'), lines.join('\n'));
}

/**
 * Where a server's CPU went, from a V8 `.cpuprofile` (node --cpu-prof): self time summed by function and
 * by file (node_modules folded to their package), as shares of the sampled time.
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=40] [skip-seconds=0]
 * `npm run bench -- --cpu-prof` (also with `--quick`) already writes each measured window's profile and a
 * summary; this reads any other profile, e.g. one of `--node-arg=--cpu-prof --node-arg=--cpu-prof-dir=…`
 * (whole process, one action per run), where `skip-seconds` leaves out the start (loading, fixtures, warm-up).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [file, topArg, skipArg] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 40);
const skipUs = Number(skipArg ?? 0) * 1e6;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** A file's name short enough to read: the package for node_modules, the path under the repo otherwise. */
function place(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url;
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url;
}

/** Our own code's frames, by name and place (the server's files under dist/). */
const ownFrame = (frame: CallFrame): string | null =>
  frame.url.includes('/dist/')
    ? `${frame.functionName === '' ? '(anonymous)' : frame.functionName}  ${place(frame.url)}`
    : null;

const perFunction = new Map<string, number>();
const inclusive = new Map<string, number>();
const perFile = new Map<string, number>();
let total = 0;
let elapsed = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  const delta = profile.timeDeltas[i] ?? 0;
  elapsed += delta;
  if (node === undefined || elapsed < skipUs) return;
  total += delta;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = place(url);
  const name = `${functionName === '' ? '(anonymous)' : functionName}  ${where}${url === '' ? '' : `:${lineNumber + 1}`}`;
  perFunction.set(name, (perFunction.get(name) ?? 0) + delta);
  perFile.set(where, (perFile.get(where) ?? 0) + delta);
  // Inclusive time of our own functions: each counted once per sample, however deep it recurses.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = byId.get(at)?.callFrame;
    const own = frame === undefined ? null : ownFrame(frame);
    if (own !== null && !seen.has(own)) {
      seen.add(own);
      inclusive.set(own, (inclusive.get(own) ?? 0) + delta);
    }
  }
});

function print(title: string, table: Map<string, number>): void {
  console.log(`\n${title}`);
  for (const [name, us] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${name}`);
  }
}

console.log(`${(total / 1e6).toFixed(2)} s sampled`);
print('self time by function', perFunction);
print('self time by file', perFile);
print('inclusive time of the server’s own functions (dist/)', inclusive);

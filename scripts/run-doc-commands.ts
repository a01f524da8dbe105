/**
 * Runs every shell block of the documents marked `<!-- runnable -->` (test/helpers/doc-blocks.ts), as written, in
 * document order, in one fresh copy of the repository: the files git tracks (and new ones it does not ignore), no
 * node_modules, no dist/. The README's `npm install` and `npm start` come first, as for a new user; a block marked
 * `runnable: serves` leaves its last line serving (a server from an earlier such block is stopped first), for the
 * blocks after it. After each block, no tracked file may have changed (package-lock.json after `npm install`) and
 * no new file may be left inside the repository's folders (a tarball in src/client); a command may write files in
 * the copy's root, where the user runs it. A failure names the document and the line.
 *
 * .ci/run runs it: `npx tsx scripts/run-doc-commands.ts`. It needs the npm registry (the README's `npm install`)
 * and port 13431, the documented one, free.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PKG_DIR } from '../src/package-dir.js';
import { allBlocks, markerOf } from '../test/helpers/doc-blocks.js';
import type { DocBlock } from '../test/helpers/doc-blocks.js';

const URL_OF_SERVER = 'http://127.0.0.1:13431/';
const BLOCK_TIMEOUT_MS = 300_000;

class Failure extends Error {}

function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=docs', '-c', 'user.email=docs@localhost', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** A fresh copy of the working tree, committed, so that `git status` shows what the commands changed. */
function freshCopy(): { root: string; clone: string } {
  const root = mkdtempSync(join(tmpdir(), 'authsvc-doc-commands-'));
  const clone = join(root, 'authsvc');
  const files = git(PKG_DIR, 'ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0');
  for (const file of files.filter(Boolean)) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    try {
      copyFileSync(join(PKG_DIR, file), join(clone, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // deleted, not yet committed
    }
  }
  git(clone, 'init', '-q');
  git(clone, 'add', '-A');
  git(clone, 'commit', '-q', '-m', 'the working tree');
  return { root, clone };
}

/** The environment of the commands: this one without a developer's AUTHSVC_* nor npm's own variables. */
function commandEnv(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(AUTHSVC_|npm_|INIT_CWD$|PORT$)/.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

const where = (b: DocBlock, offset = 0): string => `${b.doc}:${b.line + 1 + offset}`;

/** Runs a script with bash -euo pipefail; on failure, the document's line of the failing command. */
function runScript(block: DocBlock, code: string, cwd: string): void {
  const marker = markerOf(block, 'runnable');
  // The ERR trap prints the script's line that failed, mapped back to the document's.
  const script = `trap 'echo "__failed_at_line__ $LINENO" >&2' ERR\n${code}`;
  const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
    cwd,
    env: commandEnv(marker?.env ?? {}),
    encoding: 'utf8',
    timeout: BLOCK_TIMEOUT_MS,
  });
  if (run.status === 0) return;
  const failedAt = /__failed_at_line__ (\d+)/.exec(run.stderr);
  const line = failedAt === null ? 0 : Number(failedAt[1]) - 2; // the trap line, and 1-based
  const stderr = run.stderr.replace(/__failed_at_line__ \d+\n?/, '').trim();
  throw new Failure(
    `${where(block, Math.max(0, line))}: exit ${String(run.status ?? run.signal)}\n` +
      `${(code.split('\n')[line] ?? code).trim()}\n${stderr.split('\n').slice(-25).join('\n')}`,
  );
}

/** What the block changed that it must not: tracked files, and new files below the copy's root. */
function leftovers(clone: string): string[] {
  return git(clone, 'status', '--porcelain', '--untracked-files=all')
    .split('\n')
    .filter(Boolean)
    .filter((line) => !(line.startsWith('?? ') && !line.slice(3).includes('/')));
}

interface Server {
  readonly child: ChildProcess;
  readonly output: () => string;
}

async function health(): Promise<boolean> {
  try {
    return (await fetch(new URL('health', URL_OF_SERVER), { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

async function startServer(block: DocBlock, line: string, offset: number, cwd: string): Promise<Server> {
  if (await health()) throw new Failure(`${where(block, offset)}: something already serves ${URL_OF_SERVER}`);
  const child = spawn('bash', ['-c', `exec ${line}`], {
    cwd,
    env: commandEnv(markerOf(block, 'runnable')?.env ?? {}),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 120_000;
  // /health answers with the first worker; the "listening" line waits for every worker.
  while (!(await health()) || !output.includes(`authsvc is listening on ${URL_OF_SERVER}`)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopServer({ child, output: () => output });
      throw new Failure(`${where(block, offset)}: ${line} did not start serving ${URL_OF_SERVER}\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { child, output: () => output };
}

async function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<boolean>((resolve) => child.on('close', () => resolve(true)));
  process.kill(-child.pid, 'SIGTERM');
  const stopped = await Promise.race([exited, new Promise<boolean>((resolve) => setTimeout(resolve, 30_000, false))]);
  if (!stopped) process.kill(-child.pid, 'SIGKILL');
}

async function main(): Promise<number> {
  const blocks = allBlocks().filter((b) => markerOf(b, 'runnable') !== undefined);
  const { root, clone } = freshCopy();
  // An object, so that the loop's assignments are seen by the `finally`.
  const running: { server: Server | null } = { server: null };
  const started = Date.now();
  try {
    for (const block of blocks) {
      const began = Date.now();
      const lines = block.code.replace(/\n$/, '').split('\n');
      if (markerOf(block, 'runnable')?.serves === true) {
        if (running.server !== null) await stopServer(running.server);
        running.server = null;
        const last = lines.findLastIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'));
        if (last > 0) runScript(block, lines.slice(0, last).join('\n'), clone);
        running.server = await startServer(block, lines[last] ?? '', last, clone);
      } else {
        runScript(block, block.code, clone);
      }
      const left = leftovers(clone);
      if (left.length > 0) {
        throw new Failure(`${where(block)}: the commands changed the repository's files:\n${left.join('\n')}`);
      }
      process.stdout.write(`ok ${where(block)} (${((Date.now() - began) / 1000).toFixed(1)} s)\n`);
    }
    process.stdout.write(`${blocks.length} runnable blocks ran in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    process.stderr.write(`run-doc-commands: ${error.message}\n`);
    return 1;
  } finally {
    if (running.server !== null) await stopServer(running.server);
    rmSync(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();

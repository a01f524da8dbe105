/**
 * Shared pieces of the reliability suite (test/reliability/suite/): a real authsvc process on a
 * database the test can read beside it, a keep-alive HTTP client that sends raw bytes, the check that a
 * reply leaks nothing of the server's insides, and the bounded settings read from the environment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseTarget, SqliteTarget } from '../../src/services/store/url.js';
import { urlOf } from './databases.js';
import { spawnAuthsvc } from './process.js';
import type { AuthsvcProcess, SpawnOptions } from './process.js';

/** Cheap argon2 in the spawned server: the suite attacks logic, not hash cost. */
export const SUITE_ENV: Readonly<Record<string, string>> = {
  AUTHSVC_PWNEDURL: 'none',
  AUTHSVC_PASSHASH: 'argon2id:m=1024,t=1,p=1',
  // Nothing listens on port 1: the e-mail actions fail at once instead of waiting for a mail server.
  AUTHSVC_EMAILSERVER: '127.0.0.1',
  AUTHSVC_EMAILPORT: '1',
};

/** A positive integer from the environment, or the default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, not ${raw}`);
  return value;
}

/** A temporary SQLite file that outlives the processes serving it (kill -9 rounds, readers beside). */
export function sqliteFile(): { readonly target: SqliteTarget; readonly url: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-suite-'));
  const target: SqliteTarget = { dialect: 'sqlite', filename: join(dir, 'authsvc.sqlite') };
  return { target, url: urlOf(target), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An authsvc process with the suite's settings on the given database. */
export function spawnOn(
  database: DatabaseTarget,
  options: Partial<SpawnOptions> & { readonly env?: Record<string, string> } = {},
): Promise<AuthsvcProcess> {
  return spawnAuthsvc({
    workers: options.workers ?? 1,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    env: { ...SUITE_ENV, AUTHSVC_AUTHDB: urlOf(database), ...options.env },
  });
}

export interface Sent {
  readonly status: number;
  readonly text: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** POSTs raw bytes to `/` of a server, on the agent's kept-alive connections. */
export function sendRaw(port: number, body: Buffer | string, agent: Agent | false, timeoutMs = 30_000): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent,
        headers: { 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export const keepAlive = (maxSockets = 8): Agent => new Agent({ keepAlive: true, maxSockets });

/**
 * What a reply must never show: a stack frame, a source file with a line number, an internal module,
 * or a path of the machine. The server's replies say what went wrong in words, never where.
 */
const LEAK =
  /\n\s+at |\bat [\w.<>]+ \(|node:internal|node_modules|\.(?:ts|js|mjs|cjs):\d+|(?:^|[\s"'(])\/(?:home|tmp|work|usr|root|var|src)\//;

/** The leak found in a reply's text (plain or decrypted), or null. */
export function leakIn(text: string, ...paths: readonly string[]): string | null {
  const match = LEAK.exec(text);
  if (match !== null) return match[0];
  for (const path of paths) if (path !== '' && text.includes(path)) return path;
  return null;
}

/** /proc figures of a process (Linux): resident memory in kB and open file descriptors. */
export async function procFigures(pid: number): Promise<{ rssKb: number; fds: number } | null> {
  const { readFile, readdir } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
    const fds = (await readdir(`/proc/${pid}/fd`)).length;
    return { rssKb: Number(rss?.[1] ?? NaN), fds };
  } catch {
    return null;
  }
}

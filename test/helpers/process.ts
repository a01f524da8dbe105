/**
 * A real `authsvc` process (dist/bin.js, which scripts/run-tests.mjs builds first; or src/bin.ts through tsx), for
 * tests of the process model: workers, signals, restarts. It listens on a free port of 127.0.0.1; its JSON log lines
 * are collected.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { Agent, ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey, openJson, parseKeyring, sealJson } from '../../src/protocol/index.js';
import type { Keyring } from '../../src/protocol/index.js';
import { sessionNewBody } from './requests.js';
import { childEnv } from './child-env.js';

export interface AuthsvcProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  readonly keyring: Keyring;
  readonly logs: Array<Record<string, unknown>>;
  /** Seals a request envelope with the real clock, or at `nowMs` (for a process on a test clock). */
  seal(
    action: string,
    body: Record<string, unknown>,
    reqid?: string,
    options?: { readonly nowMs?: number; readonly clientIp?: string },
  ): string;
  open(text: string): Record<string, unknown>;
  health(): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  readonly workers: number;
  readonly env?: Record<string, string>;
  readonly port?: number;
  /** How long to wait for "listening" (default 60 s). */
  readonly timeoutMs?: number;
  /** Runs src/bin.ts through tsx instead of the built dist/bin.js (for a test about the source's modules). */
  readonly source?: boolean;
}

export async function spawnAuthsvc(options: SpawnOptions): Promise<AuthsvcProcess> {
  const basedir = mkdtempSync(join(tmpdir(), 'authsvc-proc-'));
  const secret = generateFernetKey();
  const keyring = parseKeyring(secret);
  if (keyring === null) throw new Error('test setup');
  const child = spawn(
    process.execPath,
    [
      ...(options.source === true
        ? ['--import', 'tsx', join(PKG_DIR, 'src', 'bin.ts')]
        : [join(PKG_DIR, 'dist', 'bin.js')]),
      `--workers=${options.workers}`,
    ],
    {
      cwd: PKG_DIR,
      env: childEnv({
        AUTHSVC_SECRET: secret,
        AUTHSVC_PIISALT: 'test-pii-salt',
        AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
        AUTHSVC_BASEDIR: basedir,
        AUTHSVC_PORT: String(options.port ?? 0),
        AUTHSVC_ADMIN_PASSWORD: 'correct horse battery staple',
        // Limits and back-off only where a test is about them (options.env).
        AUTHSVC_RATELIMITS: 'none',
        AUTHSVC_LOGINBACKOFF: 'none',
        ...options.env,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      rmSync(basedir, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    // A server left running keeps the test file's process alive for ever: end it when giving up. With other test
    // files running beside it, a start can take tens of seconds.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "listening" in time; stderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry['message'] === 'listening') {
          clearTimeout(timer);
          resolve(String(entry['url']));
        }
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`authsvc exited with ${String(code)} before listening; stderr: ${stderr}`));
    });
  });

  let counter = 0;
  return {
    child,
    url,
    port: Number(new URL(url).port),
    keyring,
    logs,
    seal: (action, body, reqid = `p-${++counter}`, options = {}) =>
      sealJson(
        keyring,
        { request: action, body, reqid, client_ipaddr: options.clientIp ?? '192.0.2.44' },
        { nowMs: options.nowMs ?? Date.now() },
      ),
    open(text) {
      const opened = openJson(keyring, text, { nowMs: Date.now() });
      if (!opened.ok) throw new Error(`reply could not be opened: ${opened.reason}`);
      return opened.value as Record<string, unknown>;
    },
    async health() {
      const response = await fetch(new URL('/health', url));
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface PostResult {
  readonly status: number;
  readonly text: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** One POST through `agent` (its kept-alive connections), or on a connection of its own (`false`). */
export function post(url: string, body: string, agent: Agent | false): Promise<PostResult> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, method: 'POST', path: '/', agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: res.headers }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One POST on a connection of its own (no keep-alive), so each request goes through accept. */
export const postOnce = (url: string, body: string): Promise<PostResult> => post(url, body, false);

/**
 * A POST whose headers the server has read (it answered `100 Continue`) but whose body is still to
 * come: `finish()` sends the body and resolves with the answer.
 */
export async function headersOnly(server: AuthsvcProcess, body: string): Promise<{ finish(): Promise<PostResult> }> {
  let req: ClientRequest | undefined;
  const answer = new Promise<PostResult>((resolve, reject) => {
    req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: { 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.flushHeaders();
  });
  await new Promise<void>((resolve) => req?.once('continue', () => resolve()));
  return {
    finish() {
      req?.end(body);
      return answer;
    },
  };
}

/** Opens a session of `userId` (the superuser unless named) on a process; returns its token. */
export async function openSessionOn(server: AuthsvcProcess, userId: number | null = 1): Promise<string> {
  const reply = server.open((await postOnce(server.url, server.seal('session-new', sessionNewBody(userId)))).text);
  assert.equal(reply['success'], true, JSON.stringify(reply));
  return String((reply['response'] as Record<string, unknown>)['session_token']);
}

/** Runs bench/baseline.ts (the floor) as plain JavaScript in its own process, so /proc measures only it. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { firstMatch } from './first-match.js';

export interface FloorServer {
  readonly url: string;
  readonly secret: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Type-strips baseline.ts into a temporary .mjs (no TypeScript loader stays in the measured process:
 * it would add memory and threads the floor does not need) and starts it with `nodeArgs`; `kind` says
 * whether it also reads or writes the database as authsvc does (baseline.ts).
 */
/**
 * The bare floor; the floor with session-exists's database read or session-new's write and a log line; and
 * the read served through Koa and @koa/router.
 */
export type FloorKind = 'bare' | 'read' | 'write' | 'koa-read';

/** baseline.ts as plain JavaScript, stripped once per bench run (every floor kind runs the same file). */
let stripped: string | undefined;
function baselineScript(): string {
  stripped ??= ts.transpileModule(readFileSync(join(PKG_DIR, 'bench', 'baseline.ts'), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  return stripped;
}

export async function startFloor(nodeArgs: readonly string[] = [], kind: FloorKind = 'bare'): Promise<FloorServer> {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-floor-'));
  const script = join(dir, 'baseline.mjs');
  writeFileSync(script, baselineScript());
  const secret = generateFernetKey();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: {
      PATH: process.env['PATH'] ?? '',
      AUTHSVC_BENCH_SECRET: secret,
      AUTHSVC_BENCH_PORT: '0',
      ...(kind === 'bare'
        ? {}
        : {
            AUTHSVC_BENCH_STORE: kind === 'write' ? 'write' : 'read',
            AUTHSVC_BENCH_REQUIRE_FROM: join(PKG_DIR, 'package.json'),
            AUTHSVC_BENCH_DB_DIR: dir,
          }),
      ...(kind === 'koa-read' ? { AUTHSVC_BENCH_FRAMEWORK: 'koa' } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code) => reject(new Error(`the floor server exited ${String(code)}`))),
  );
  exited.catch(() => undefined); // after the start, an exit is stop()'s business
  // Output that ends without the line means the server exited: its exit code says more.
  const listening = firstMatch(child.stdout, /"listening":(\d+)/).catch(() => exited);
  const port = Number((await Promise.race([listening, exited]))[1]);
  return {
    url: `http://127.0.0.1:${port}/`,
    secret,
    pid: child.pid ?? 0,
    async stop() {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

#!/usr/bin/env -S node --max-semi-space-size=4 --v8-pool-size=1
/**
 * The `authsvc` command (package.json "bin"). Serving: exit 0 done (help, autosetup), 2 refused
 * (configuration), 1 crashed. Admin commands (`authsvc user|session|policy …`, src/admin): 0 done,
 * 1 refused, 2 usage or configuration; they start neither the HTTP server nor the cluster.
 * The first line carries node's flags (cluster/launch.ts, NODE_FLAGS).
 */
// First: sizes libuv's thread pool before any other module can start it.
import './cluster/launch.js';
import { isAdminCommand } from './admin/args.js';
import { readEnvironment } from './config/environment.js';
import { flushStdio } from './log/logger.js';

/** Log lines are batched (log/writer.ts): exit once they are out. */
const exit = (code: number): void => void flushStdio().then(() => process.exit(code));

const argv = process.argv.slice(2);

async function main(): Promise<number | null> {
  if (isAdminCommand(argv)) {
    const { runAdmin } = await import('./admin/index.js');
    return runAdmin(argv, readEnvironment(), process);
  }
  const { serve } = await import('./cluster/serve.js');
  const outcome = await serve(argv, readEnvironment(), process);
  return 'exitCode' in outcome ? outcome.exitCode : null;
}

main().then(
  (code) => {
    if (code !== null) exit(code);
  },
  (error: unknown) => {
    // A bug of ours, not a start-up failure (serve reports those in one line): the stack helps.
    process.stderr.write(`authsvc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exit(1);
  },
);

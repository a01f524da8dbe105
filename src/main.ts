#!/usr/bin/env node
/** The `authsvc` command: read the configuration, refuse with exit code 2 when it is incomplete, serve. */
import { serve } from './cluster/index.js';
import { loadConfVars } from './config/confvars.js';
import { readEnvironment } from './config/environment.js';
import { loadConfig } from './config/load.js';
import { SHIPPED_CONFVARS } from './config/paths.js';

async function main(): Promise<void> {
  const loaded = loadConfig(process.argv.slice(2), readEnvironment(), loadConfVars(SHIPPED_CONFVARS));
  if (!loaded.ok) {
    process.stderr.write(`authsvc: cannot start:\n${loaded.problems.map((p) => `  - ${p}\n`).join('')}`);
    process.exit(2);
  }
  // The process model (single process, or cluster primary and workers) lives in src/cluster.
  await serve(loaded.config);
}

main().catch((error: unknown) => {
  process.stderr.write(`authsvc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

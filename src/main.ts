#!/usr/bin/env node
/** The `authsvc` command. Exit codes: 0 done (help, autosetup), 2 refused (configuration), 1 crashed. */
import { readEnvironment } from './config/environment.js';
import { serve } from './serve.js';

serve(process.argv.slice(2), readEnvironment(), process).then(
  (outcome) => {
    if ('exitCode' in outcome) process.exit(outcome.exitCode);
  },
  (error: unknown) => {
    process.stderr.write(`authsvc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

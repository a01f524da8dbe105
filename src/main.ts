#!/usr/bin/env node
/** The `authsvc` command. Exit codes: 0 done (help, autosetup), 2 refused (configuration), 1 crashed. */
import { readEnvironment } from './config/environment.js';
import { flushStdio } from './log/logger.js';
import { serve } from './serve.js';

/** Log lines are batched (log/writer.ts): exit once they are out. */
const exit = (code: number): void => void flushStdio().then(() => process.exit(code));

serve(process.argv.slice(2), readEnvironment(), process).then(
  (outcome) => {
    if ('exitCode' in outcome) exit(outcome.exitCode);
  },
  (error: unknown) => {
    // A bug of ours, not a start-up failure (serve reports those in one line): the stack helps.
    process.stderr.write(`authsvc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exit(1);
  },
);

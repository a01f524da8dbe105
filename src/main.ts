#!/usr/bin/env node
/** The `authsvc` command: read the configuration, refuse with exit code 2 when it is incomplete, serve. */
import { startApp } from './app.js';
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
  const app = await startApp({ config: loaded.config });
  app.log.info('listening', { url: app.url, startup_ms: Math.round(performance.now()) });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    app.log.info('stopping', { signal });
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`authsvc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

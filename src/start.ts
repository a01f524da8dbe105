/**
 * `npm start`: zero configuration. The first run sets authsvc up (as --autosetup with every answer
 * blank) in the git-ignored `.authsvc/` folder of the package; every run then starts from its `.env`.
 * Items can still be changed by the environment or by options after `npm start --`. package.json's
 * `start` script runs it with node's flags (cluster/launch.ts, NODE_FLAGS).
 */
// First: sizes libuv's thread pool before any other module can start it.
import './cluster/launch.js';
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { readEnvironment } from './config/environment.js';
import type { Environment } from './config/environment.js';
import { readInputs } from './config/inputs.js';
import { rawValue } from './config/retrieve.js';
import { flushStdio } from './log/logger.js';
import { serve } from './cluster/serve.js';
import { BLANK_ANSWERS, ENV_FILE, SECRET_FILE, describeSetup, runSetup } from './setup/autosetup.js';
import { CREDENTIALS_FILE } from './setup/credentials.js';
import { START_DIR, startFolderArgv } from './setup/start-folder.js';

const basedir = START_DIR;

/**
 * The spec's default of 4 workers made `session-exists` 40 % slower than 1 on a 2-core machine, so
 * when nothing names the number, `npm start` takes no more workers than there are cores (at most 4)
 * and says so. A `workers` item given anywhere is kept as it is.
 */
function workersOption(argv: readonly string[], env: Environment): string[] {
  const { confvars, sources } = readInputs(argv, env);
  const item = confvars?.items['workers'];
  if (item === undefined || rawValue(item, sources).source !== 'default') return [];
  const workers = Math.min(4, availableParallelism());
  if (cluster.isPrimary) {
    process.stdout.write(
      `workers: ${workers} (min(4, ${availableParallelism()} available CPUs); set --workers or AUTHSVC_WORKERS to choose)\n`,
    );
  }
  return [`--workers=${workers}`];
}

async function start(): Promise<number | null> {
  if (!existsSync(join(basedir, ENV_FILE))) {
    const setup = await runSetup(basedir, BLANK_ANSWERS, { force: false });
    if (!setup.ok) {
      process.stderr.write(`authsvc: setup failed:\n${setup.problems.map((p) => `  - ${p}\n`).join('')}`);
      return 2;
    }
    process.stdout.write(`First start: ${describeSetup(setup.done)}`);
  }
  const given = [...startFolderArgv(), ...process.argv.slice(2)];
  const env = readEnvironment();
  const outcome = await serve([...given, ...workersOption(given, env)], env, process);
  if ('exitCode' in outcome) return outcome.exitCode;
  if (outcome.url === null) return null; // a cluster worker: the primary speaks
  const show = (file: string): string => relative(process.cwd(), join(basedir, file)) || file;
  process.stdout.write(
    [
      '',
      `authsvc is listening on ${outcome.url}`,
      existsSync(join(basedir, CREDENTIALS_FILE))
        ? `  admin credentials: ${show(CREDENTIALS_FILE)} (one line: the email, a space, the password)`
        : '  admin account: the one you configured',
      `  shared secret:     ${show(SECRET_FILE)}`,
      '  connect a frontend:',
      "    import { createClient } from 'authsvc/client';",
      `    const authsvc = createClient({ url: '${outcome.url}', secret: readFileSync('${join(basedir, SECRET_FILE)}', 'utf8') });`,
      '  stop with Ctrl-C',
      '',
    ].join('\n'),
  );
  return null;
}

/** Log lines are batched (log/writer.ts): exit once they are out. */
const exit = (code: number): void => void flushStdio().then(() => process.exit(code));

start().then(
  (code) => {
    if (code !== null) exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`authsvc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exit(1);
  },
);

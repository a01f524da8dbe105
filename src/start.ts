/**
 * `npm start`: zero configuration. The first run sets authsvc up (as --autosetup with every answer
 * blank) in the git-ignored `.authsvc/` folder of the package; every run then starts from its `.env`.
 * Items can still be changed by the environment or by options after `npm start --`. package.json's
 * `start` script runs it with node's flags (cluster/launch.ts, NODE_FLAGS).
 */
// First: sizes libuv's thread pool before any other module can start it.
import './cluster/launch.js';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readEnvironment } from './config/environment.js';
import { flushStdio } from './log/logger.js';
import { serve } from './cluster/serve.js';
import { BLANK_ANSWERS, ENV_FILE, SECRET_FILE, describeSetup, runSetup } from './setup/autosetup.js';
import { CREDENTIALS_FILE } from './setup/credentials.js';
import { START_DIR, startFolderArgv } from './setup/start-folder.js';

const basedir = START_DIR;

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
  const outcome = await serve(given, readEnvironment(), process);
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
      "    import { readFileSync } from 'node:fs';",
      "    import { createClient } from '@authsvc/client';",
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

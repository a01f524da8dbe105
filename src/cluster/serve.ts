/**
 * The `authsvc` command, as a function: --help, --autosetup, or read the configuration and serve.
 * Both entry files call it: bin.ts (the `authsvc` bin) and start.ts (`npm start`).
 */
import type { Readable, Writable } from 'node:stream';
import cluster from 'node:cluster';
import { serveProcesses } from './index.js';
import { policyFromPrimary } from './policy.js';
import { reportStartFailure } from './start-failure.js';
import type { Environment } from '../config/environment.js';
import { ADMIN_SUMMARY } from '../admin/help.js';
import { helpText } from '../config/help.js';
import { loadStartup } from '../setup/startup.js';
import { readInputs } from '../config/inputs.js';
import { overriddenOptions } from '../config/precedence.js';
import { rawValue } from '../config/retrieve.js';
import { VERSION } from '../config/version.js';
import { alreadySetUp, askAnswers, describeSetup, runSetup } from '../setup/autosetup.js';

export interface Terminal {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** Either the command is done (exit with the code), or this process serves (url: null in a worker). */
export type Outcome = { readonly exitCode: number } | { readonly url: string | null };

function refuse(terminal: Terminal, problems: readonly string[]): Outcome {
  terminal.stderr.write(`authsvc: cannot start:\n${problems.map((p) => `  - ${p}\n`).join('')}`);
  return { exitCode: 2 };
}

export async function serve(argv: readonly string[], env: Environment, terminal: Terminal): Promise<Outcome> {
  const inputs = readInputs(argv, env);
  const { commandLine, confvars } = inputs;
  if (commandLine.version) {
    terminal.stdout.write(`authsvc ${VERSION}\n`);
    return { exitCode: 0 };
  }
  if (commandLine.help) {
    if (confvars === null) return refuse(terminal, inputs.problems);
    terminal.stdout.write(`${helpText(confvars)}\n${ADMIN_SUMMARY}`);
    return { exitCode: 0 };
  }
  if (commandLine.autosetup) {
    if (inputs.problems.length > 0 || confvars === null) return refuse(terminal, inputs.problems);
    const basedirItem = confvars.items['basedir'];
    const basedir = String((basedirItem ? rawValue(basedirItem, inputs.sources).value : null) ?? '.');
    const refusal = alreadySetUp(basedir, commandLine.force);
    if (refusal !== null) return refuse(terminal, [refusal]); // before the questions, not after them
    const answers = await askAnswers(terminal.stdin, terminal.stdout);
    const setup = await runSetup(basedir, answers, { force: commandLine.force });
    if (!setup.ok) return refuse(terminal, setup.problems);
    terminal.stdout.write(describeSetup(setup.done));
    return { exitCode: 0 };
  }
  if (commandLine.force) return refuse(terminal, ['--force only goes with --autosetup']);
  // A worker enforces the document its primary enforces, not whatever the file holds now (cluster/policy.ts).
  const policyBytes = cluster.isWorker ? await policyFromPrimary() : null;
  const loaded = await loadStartup(inputs, policyBytes);
  if (!loaded.ok) return refuse(terminal, loaded.problems);
  // Once: the primary (or the single process) says it; its workers read the same inputs.
  if (!cluster.isWorker) {
    for (const line of overriddenOptions(inputs)) terminal.stderr.write(`authsvc: warning: ${line}\n`);
    const defaulted = loaded.config.workersDefault;
    if (defaulted !== null) {
      terminal.stdout.write(
        `workers: ${loaded.config.workers} (min(${defaulted.default}, ${defaulted.cpus} available CPUs); ` +
          'set --workers or AUTHSVC_WORKERS to choose)\n',
      );
    }
  }
  // The process model (single process, or cluster primary and workers) lives in src/cluster.
  try {
    return { url: await serveProcesses(loaded.config, loaded.policy) };
  } catch (error) {
    // Not the configuration's fault (exit 2 above): the database, the port, the certificate. One line, exit 1.
    return { exitCode: await reportStartFailure(error, loaded.config, terminal.stderr) };
  }
}

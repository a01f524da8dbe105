import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { BLANK_ANSWERS, runSetup } from '../../src/setup/autosetup.js';
import { tempDir } from '../helpers/temp.js';
import { startAuthsvc } from './spawn.js';

/**
 * One number of workers for one data folder, however it is started: `npm start`, the `npx authsvc …` command that
 * setup prints, and the systemd unit all leave the `workers` item to its default, which is 4 capped at the CPUs
 * (docs/design.md#worker-processes). The child processes see a 2-CPU machine, so the cap shows on any machine.
 */
const CPUS = 2;
const twoCpus = `--import=data:text/javascript,${encodeURIComponent(
  "import os from 'node:os'; import { syncBuiltinESMExports } from 'node:module';" +
    `os.availableParallelism = () => ${CPUS}; syncBuiltinESMExports();`,
)}`;
const root = tempDir('workers-default');

const workersOf = (output: string): number => {
  const match = /"workers":(\d+)[^\n]*"message":"listening"|"message":"listening"[^\n]*"workers":(\d+)/.exec(output);
  return Number(match?.[1] ?? match?.[2] ?? NaN);
};

describe('the default number of workers', () => {
  it('is the same for the printed start command as for npm start: 4, at most the CPUs, and said', async () => {
    const setup = await runSetup(join(root, 'data'), BLANK_ANSWERS, { force: false });
    assert.ok(setup.ok, JSON.stringify(setup));
    const args = setup.done.startCommand.replace(/^npx authsvc /, '').split(' ');
    assert.deepEqual(
      args.filter((a) => a.startsWith('--workers')),
      [],
      'the printed command names no number',
    );
    assert.doesNotMatch(readFileSync(setup.done.envFile, 'utf8'), /WORKERS/, 'nor does the .env');
    const server = await startAuthsvc([...args, '--port=0'], {
      cwd: root,
      env: { NODE_OPTIONS: twoCpus, AUTHSVC_LOGFORMAT: 'json' },
    });
    try {
      assert.equal(workersOf(server.output()), Math.min(4, CPUS), server.output());
      assert.match(server.output(), new RegExp(`^workers: ${CPUS} \\(min\\(4, ${CPUS} available CPUs\\)`, 'm'));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('is left to that default by the systemd unit', () => {
    const unit = readFileSync(join(PKG_DIR, 'deploy', 'systemd', 'authsvc.service'), 'utf8');
    assert.match(unit, /^ExecStart=.*dist\/bin\.js /m);
    assert.doesNotMatch(unit, /workers|WORKERS/i);
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey } from '../../src/protocol/index.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts authsvc on a fresh SQLite database, returns its output up to the "listening" line, and stops it. */
function outputUntilListening(args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const basedir = mkdtempSync(join(tmpdir(), 'authsvc-logformat-'));
  dirs.push(basedir);
  const env = {
    PATH: process.env['PATH'] ?? '',
    AUTHSVC_SECRET: generateFernetKey(),
    AUTHSVC_PIISALT: 'logformat-salt',
    AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
    AUTHSVC_BASEDIR: basedir,
    AUTHSVC_WORKERS: '1',
    AUTHSVC_ADMIN_EMAIL: 'operator@example.org',
    ...extraEnv,
  };
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, join(PKG_DIR, 'src', 'bin.ts'), '--port=0', ...args], {
    cwd: basedir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (/listening/.test(output)) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', () => {
      clearTimeout(timer);
      if (/listening/.test(output)) resolve(output);
      else reject(new Error(output));
    });
  });
}

describe('the logformat item', () => {
  it('writes JSON lines when stdout is not a terminal and nothing is set', async () => {
    const output = await outputUntilListening([]);
    const line = output.split('\n').find((l) => l.includes('listening')) ?? '';
    assert.equal((JSON.parse(line) as { message: string }).message, 'listening');
  });

  it('writes pretty lines with --logformat=pretty, personal data still a digest', async () => {
    const output = await outputUntilListening(['--logformat=pretty']);
    assert.match(output, /^\d{4}-\d\d-\d\dT[\d:.]+Z info {2}listening url=http:\/\/127\.0\.0\.1:\d+/m);
    assert.match(output, /created the superuser account user=[0-9a-f]{32}/);
    assert.doesNotMatch(output, /operator@example\.org/);
  });

  it('takes AUTHSVC_LOGFORMAT, and refuses anything but json or pretty', async () => {
    const output = await outputUntilListening([], { AUTHSVC_LOGFORMAT: 'JSON' });
    assert.match(output, /"message":"listening"/);
    await assert.rejects(outputUntilListening(['--logformat=yaml']), /logformat .* must be json or pretty, not "yaml"/);
  });
});

import { resolve } from 'node:path';
import type { Environment } from '../../../app/config/environment.js';

/**
 * A path as its author typed it: relative to the directory they typed it in. `npm run` runs the
 * policy CLIs in the package's folder and says where it was called from in INIT_CWD; run directly,
 * the CLIs are where they were called.
 */
export function callerPath(path: string, env: Environment, cwd: string = process.cwd()): string {
  const initCwd = env['INIT_CWD'];
  return resolve(initCwd === undefined || initCwd === '' ? cwd : initCwd, path);
}

import { resolve } from 'node:path';

/**
 * A path as its author typed it: relative to the directory they typed it in. `npm run` runs the
 * policy CLIs in the package's folder and says where it was called from in INIT_CWD (`initCwd`, which
 * the CLIs read from the environment snapshot); run directly, the CLIs are where they were called.
 */
export function callerPath(path: string, initCwd: string | undefined, cwd: string = process.cwd()): string {
  return resolve(initCwd === undefined || initCwd === '' ? cwd : initCwd, path);
}

/**
 * The environment of a process a test starts: what the test gives it and PATH, nothing else of the test's own
 * environment (so a developer's AUTHSVC_* never leaks in), except node's compile cache, which
 * scripts/run-tests.mjs sets so that every process reuses the code V8 compiled for the same modules.
 */
export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const cache = process.env['NODE_COMPILE_CACHE'];
  return { PATH: process.env['PATH'] ?? '', ...(cache === undefined ? {} : { NODE_COMPILE_CACHE: cache }), ...env };
}

/**
 * Which source files and folders one request runs code in: a real in-process server (SQLite), a
 * prepared request sealed beforehand, V8 precise coverage started just before the request is posted and
 * taken as soon as the reply arrives. Prints, per action, the files of src/ with any function called.
 *   npx tsx scripts/request-path.ts [user-login|user-check-access ...]
 */
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GOOD_PASSWORD, openSession, verifiedUser } from '../test/helpers/accounts.js';
import { startTestServer } from '../test/helpers/server.js';
import { PKG_DIR } from '../src/package-dir.js';

interface FunctionCoverage {
  readonly functionName: string;
  readonly ranges: readonly { readonly count: number }[];
}
interface ScriptCoverage {
  readonly url: string;
  readonly functions: readonly FunctionCoverage[];
}

const wanted = process.argv.slice(2);
const actions = wanted.length > 0 ? wanted : ['user-login', 'user-check-access'];
const server = await startTestServer();
const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');

async function bodyFor(action: string): Promise<Record<string, unknown>> {
  const email = `path-${action}-${String(Date.now())}@example.org`;
  const userId = await verifiedUser(server, email);
  const session = await openSession(server, userId);
  if (action === 'user-login') return { session_token: session, email, password: GOOD_PASSWORD };
  if (action === 'user-check-access') {
    return {
      user_id: userId,
      user_role: 'authenticated',
      action: 'view',
      target_name: 'dataset',
      target_owner: userId,
      target_visibility: 'private',
      target_sharedwith: '',
    };
  }
  if (action === 'session-exists') return { session_token: session };
  throw new Error(`no body for ${action}`);
}

for (const action of actions) {
  const body = await bodyFor(action);
  const sealed = server.seal({ request: action, body, reqid: 1, client_ipaddr: '192.0.2.1' });
  await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const reply = await fetch(server.url, { method: 'POST', body: sealed, headers: { host: '127.0.0.1' } });
  const text = await reply.text();
  const { result } = (await inspector.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
  await inspector.post('Profiler.stopPreciseCoverage');
  const files = result
    .filter((s) => s.url.startsWith('file://') && s.url.includes('/src/'))
    .filter((s) => s.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
    .map((s) => relative(PKG_DIR, fileURLToPath(s.url)))
    .filter((f) => f.startsWith('src/'))
    .sort();
  const folders = new Set(files.map((f) => f.split('/').slice(0, -1).join('/') || 'src'));
  if (reply.status !== 200) throw new Error(`${action}: HTTP ${String(reply.status)} ${text}`);
  const opened = server.open(text) as { success?: boolean };
  console.log(
    `${action}: HTTP ${reply.status}, success ${String(opened.success)}: ${files.length} files in ${folders.size} folders`,
  );
  for (const f of files) console.log(`  ${f}`);
}
inspector.disconnect();
await server.close();

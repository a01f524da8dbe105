/**
 * The packed client's declarations compile in a frontend's strict TypeScript project as it comes: `strict`,
 * module nodenext, no `types` setting (TypeScript 6 then loads no @types package) and no @types/node installed.
 * So its public declarations may use only what TypeScript's default libraries declare: no Buffer, no NodeJS.*,
 * no `node:` module types (docs/design.md#the-clients-declarations-stand-alone).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installClient, packClient } from '../helpers/client-package.js';
import { tempDir } from '../helpers/temp.js';

const work = tempDir('client-strict');

const FRONTEND = `import { AuthsvcError, createClient, failureCodeOf } from '@authsvc/client';
import type { ActionInput, AuthsvcErrorKind, ClientOptions, ResponseEnvelope } from '@authsvc/client';

const options: ClientOptions = { url: 'https://auth.internal:13431/', secret: 'key', ca: new Uint8Array([1]) };
const authsvc = createClient(options);
const visitor: ActionInput<'session-new'> = {
  ip_address: '192.0.2.1',
  user_agent: 'ua',
  user_id: null,
  expires: 1,
  extra_info_json: {},
};
try {
  const reply: ResponseEnvelope<'session-new'> = await authsvc.request('session-new', visitor, {
    clientIp: '192.0.2.1',
    signal: new AbortController().signal,
  });
  if (reply.success) {
    const token: string = reply.response.session_token;
    console.log(token);
  } else {
    console.log(failureCodeOf(reply.failure_reason));
  }
} catch (error) {
  if (error instanceof AuthsvcError) {
    const kind: AuthsvcErrorKind = error.kind;
    console.log(kind);
  }
} finally {
  authsvc.close();
}
`;

describe('@authsvc/client in a strict TypeScript project with no extra settings', () => {
  it('type-checks a file that imports and uses it, without @types/node', () => {
    const app = join(work, 'frontend');
    installClient(app, packClient(work));
    assert.equal(existsSync(join(app, 'node_modules', '@types')), false, 'the project has no @types package');
    writeFileSync(join(app, 'app.ts'), FRONTEND);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', noEmit: true }, files: ['app.ts'] }),
    );
    // The project's own TypeScript (6 or later: no `types` setting means no @types package is loaded).
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const compiled = spawnSync(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')], {
      cwd: app,
      encoding: 'utf8',
    });
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
  });
});

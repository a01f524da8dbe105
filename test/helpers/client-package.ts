/**
 * @authsvc/client as a frontend gets it (docs/client.md, "Install"): `npm pack` of src/client, then
 * `npm install` of the tarball in a folder of the frontend's own, outside the clone, with no registry (its one
 * dependency is packed from this checkout's node_modules).
 *
 * The pack runs on a copy of the client's sources: its prepack builds into the package's dist/ and its postpack
 * removes it, so two tests packing src/client itself at the same time would pull the build from under each other
 * (test/client/package.test.ts packs the real folder).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';

export interface PackedClient {
  /** The tarball of @authsvc/client. */
  readonly client: string;
  /** The tarball of its one dependency, @sinclair/typebox. */
  readonly typebox: string;
}

/** npm, quietly, in `cwd`; its output. */
export function npm(args: readonly string[], cwd: string): string {
  return execFileSync('npm', ['--no-audit', '--no-fund', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
}

/** `npm pack` of the package in `from` into `dir`; returns the tarball's path. */
export function packInto(from: string, dir: string, ...flags: string[]): string {
  const before = new Set(readdirSync(dir));
  npm(['pack', '--pack-destination', dir, ...flags], from);
  const made = readdirSync(dir).find((f) => f.endsWith('.tgz') && !before.has(f));
  assert.ok(made, `npm pack in ${from} wrote no tarball`);
  return join(dir, made);
}

/** Packs @authsvc/client (from a copy of the repository's parts it builds from) and typebox into `work`. */
export function packClient(work: string): PackedClient {
  const copy = join(work, 'authsvc-copy');
  mkdirSync(copy, { recursive: true });
  // What the client's prepack reads: its own folder, the protocol it imports, the root tsconfig it extends,
  // and whatever the root holds that a pack may take along (the licence).
  for (const part of ['src/client', 'src/protocol', 'tsconfig.json', 'package.json', 'LICENSE', 'LICENSE.md']) {
    if (existsSync(join(PKG_DIR, part))) cpSync(join(PKG_DIR, part), join(copy, part), { recursive: true });
  }
  symlinkSync(join(PKG_DIR, 'node_modules'), join(copy, 'node_modules'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  return {
    client: packInto(join(copy, 'src', 'client'), tarballs),
    typebox: packInto(join(PKG_DIR, 'node_modules', '@sinclair', 'typebox'), tarballs, '--ignore-scripts'),
  };
}

/** A fresh ES-module project in `app` with the packed client installed as docs/client.md says (offline). */
export function installClient(app: string, packed: PackedClient): void {
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), '{ "name": "frontend", "private": true, "type": "module" }\n');
  npm(['install', '--offline', packed.client, packed.typebox], app);
}

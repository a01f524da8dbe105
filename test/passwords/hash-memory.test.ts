/**
 * A password hash's memory goes back to the system once hashing stops (src/passwords/hash-memory.ts):
 * a real authsvc process, real argon2id hashes at the default 19 MiB, resident memory read from /proc.
 * Linux with glibc, where the native module is built by `npm install`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { canReleaseFreedMemory, MALLOC_TUNABLES, RELEASE_AFTER_IDLE_MS } from '../../src/passwords/hash-memory.js';
import { processTreeRssMb } from '../../bench/lib/server.js';
import { postOnce, spawnAuthsvc } from '../helpers/process.js';
import type { AuthsvcProcess } from '../helpers/process.js';

const HASH_MIB = 19;
/** Resident memory of the process and its children (the workers), in MB. */
const rssMib = (pid: number): number => processTreeRssMb(pid).reduce((a, b) => a + b, 0);

/** Minor page faults of the process so far (/proc/<pid>/stat, field 10): 4 KiB pages it was given. */
const minorFaults = (pid: number): number =>
  Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[7] ?? NaN);

/** `count` password checks at once (an unknown address is checked against a dummy hash all the same). */
async function passchecks(server: AuthsvcProcess, count: number): Promise<void> {
  const body = { email: 'nobody@example.org', password: 'not the password at all' };
  const replies = await Promise.all(
    Array.from({ length: count }, () => postOnce(server.url, server.seal('user-passcheck-nosession', body))),
  );
  for (const reply of replies) assert.equal(reply.status, 200, reply.text);
}

/** The least RSS seen while polling for up to `ms`: memory given back shows within a few polls. */
async function lowestRss(pid: number, ms: number): Promise<number> {
  let lowest = rssMib(pid);
  for (const end = Date.now() + ms; Date.now() < end;) {
    await sleep(100);
    lowest = Math.min(lowest, rssMib(pid));
  }
  return lowest;
}

/** Once `pid` is idle, `count` hashes at once: they must hold at least `blocks` 19 MiB blocks. Both readings. */
async function hashFromIdle(
  server: AuthsvcProcess,
  count: number,
  blocks: number,
): Promise<{ readonly idle: number; readonly busy: number }> {
  const pid = server.child.pid ?? 0;
  // A first start hashes the admin password outside the queue: that memory goes back a second after start.
  const idle = await lowestRss(pid, RELEASE_AFTER_IDLE_MS + 1500);
  await passchecks(server, count);
  const busy = rssMib(pid);
  assert.ok(busy - idle >= HASH_MIB * blocks * 0.8, `RSS ${idle.toFixed(1)} → ${busy.toFixed(1)} MiB while hashing`);
  return { idle, busy };
}

/** Within the idle second and a margin, the blocks are back: RSS within half a block of the idle reading. */
async function assertGivenBack(pid: number, { idle, busy }: { readonly idle: number; readonly busy: number }) {
  const after = await lowestRss(pid, RELEASE_AFTER_IDLE_MS + 1500);
  assert.ok(
    after - idle < HASH_MIB * 0.5,
    `RSS ${busy.toFixed(1)} → ${after.toFixed(1)} MiB (idle ${idle.toFixed(1)})`,
  );
}

describe('password hash memory', { skip: process.platform !== 'linux' && 'Linux only (glibc, /proc)' }, () => {
  it('is built and loads where the server runs (npm install builds native/malloc_trim.c)', () => {
    assert.equal(canReleaseFreedMemory, true);
  });

  it('goes back to the system once no hash has run for a second, and stays while hashes keep coming', async () => {
    const hashes = Math.min(2, availableParallelism());
    // As npm start, the Dockerfile and the systemd unit start it.
    const server = await spawnAuthsvc({ workers: 1, env: { GLIBC_TUNABLES: MALLOC_TUNABLES } });
    try {
      // At least one block: on a busy machine the two checks may not overlap, and then share one block.
      const readings = await hashFromIdle(server, hashes, 1);
      // Hashes closer together than the idle second reuse the blocks: no page faults for them.
      const pid = server.child.pid ?? 0;
      await sleep(RELEASE_AFTER_IDLE_MS / 10);
      const faults = minorFaults(pid);
      await passchecks(server, hashes);
      const pages = minorFaults(pid) - faults;
      assert.ok(pages < (HASH_MIB * 256) / 2, `${pages} pages faulted in for hashes that should reuse their memory`);
      await assertGivenBack(pid, readings);
    } finally {
      await server.stop();
    }
  });

  it('goes back from the workers of a primary the operator gave no glibc settings (it gives them its own)', async () => {
    const server = await spawnAuthsvc({ workers: 2 });
    try {
      await assertGivenBack(server.child.pid ?? 0, await hashFromIdle(server, 2, 1));
    } finally {
      await server.stop();
    }
  });
});

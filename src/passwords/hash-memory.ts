/**
 * Giving a password hash's memory back once hashing stops.
 *
 * An argon2id verify mallocs its 19 MiB on the libuv pool thread that runs it. By default glibc then
 * keeps such a block in that thread's arena for the next hash (its mmap threshold rises to the block's
 * size the first time one is freed), and no call can shrink another thread's arena: a process holds
 * 19 MiB per hashing thread (38 MiB on 2 cores) from its first logins on. Returning the blocks after
 * every hash instead (a fixed low mmap threshold) costs page faults on every verify: measured 7 ms per
 * 17 ms verify, refused.
 *
 * So npm start, the Dockerfile, the systemd unit and a cluster primary (for its workers) start node with
 * GLIBC_TUNABLES (below): one arena, the main one, where malloc_trim can reach, and fixed thresholds that
 * keep the blocks there between hashes (no page faults under load). Once no hash has run for a second,
 * the hash queue calls releaseFreedMemory(): malloc_trim(0) returns them (measured on 2 cores: 38 MiB in
 * ~5 ms; the next verify pays its page faults once, ~18 ms of CPU on this VM). The `authsvc` command
 * cannot set the variable for itself (glibc reads it before any JavaScript runs, and its first line
 * would pass the 127 bytes older kernels read of it): a single process started so keeps its blocks.
 * Without the tunables, malloc_trim still returns the main arena's free memory, and nothing else changes;
 * without the native module (not built, or not glibc) nothing is returned.
 */
import { createRequire } from 'node:module';
import type { HashQueueOptions } from './hash-queue.js';

/**
 * glibc's malloc settings of npm start, the Dockerfile, the systemd unit and a primary's workers: one
 * arena; blocks below 32 MiB (a hash's 19 MiB) from the arena, never trimmed by free() below 64 MiB at
 * the top. An operator's own GLIBC_TUNABLES is kept instead.
 */
export const MALLOC_TUNABLES =
  'glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864';

/** How long the hash queue waits, once empty, before giving the memory back. */
export const RELEASE_AFTER_IDLE_MS = 1000;

interface MallocTrim {
  /** true: memory was returned; false: none to return; null: not glibc. */
  trim(): boolean | null;
}

function load(): MallocTrim | null {
  try {
    // build/ sits beside src/ and dist/: the same path from either.
    return createRequire(import.meta.url)('../../build/Release/malloc_trim.node') as MallocTrim;
  } catch {
    return null;
  }
}

const native = load();

/** Whether this process can give freed memory back (the native module loaded, on glibc). Asking trims once. */
export const canReleaseFreedMemory = native !== null && native.trim() !== null;

/** Gives the free memory at the top of the main arena back to the system; false when none was or it cannot. */
export function releaseFreedMemory(): boolean {
  return native?.trim() === true;
}

/** The hash queue's idle hook (hash-queue.ts) where memory can be given back; nothing where it cannot. */
export const releaseWhenIdle: Pick<HashQueueOptions, 'whenIdle'> = canReleaseFreedMemory
  ? { whenIdle: { afterMs: RELEASE_AFTER_IDLE_MS, run: releaseFreedMemory } }
  : {};

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hash as argon2Hash } from 'argon2';
import { UnavailableError } from '../../src/domain/errors.js';
import { createHashQueue, createHasher } from '../../src/accounts/password-hashing.js';

const argon2 = { kind: 'argon2id', memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;
const argon2Stronger = { kind: 'argon2id', memoryCost: 2048, timeCost: 2, parallelism: 1 } as const;
const scrypt = { kind: 'scrypt', logN: 10, r: 8, p: 1 } as const;

describe('password hashing', () => {
  it('hashes with argon2id by default parameters given, and verifies', async () => {
    const hasher = createHasher(argon2);
    const stored = await hasher.hash('correct horse battery staple');
    assert.match(stored, /^\$argon2id\$v=19\$m=1024,p=1,t=1\$/);
    assert.deepEqual(await hasher.verify(stored, 'correct horse battery staple'), { ok: true, needsRehash: false });
    assert.deepEqual(await hasher.verify(stored, 'correct horse battery stapler'), { ok: false, needsRehash: false });
  });

  it('hashes with scrypt when configured, and verifies', async () => {
    const hasher = createHasher(scrypt);
    const stored = await hasher.hash('correct horse battery staple');
    assert.match(stored, /^\$scrypt-kdf\$[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(await hasher.verify(stored, 'correct horse battery staple'), { ok: true, needsRehash: false });
    assert.equal((await hasher.verify(stored, 'wrong')).ok, false);
  });

  it('verifies both kinds whatever is configured, asking for a rehash into the configured one', async () => {
    const fromArgon2 = await createHasher(argon2).hash('pw one two three');
    const fromScrypt = await createHasher(scrypt).hash('pw one two three');
    assert.deepEqual(await createHasher(scrypt).verify(fromArgon2, 'pw one two three'), {
      ok: true,
      needsRehash: true,
    });
    assert.deepEqual(await createHasher(argon2).verify(fromScrypt, 'pw one two three'), {
      ok: true,
      needsRehash: true,
    });
  });

  it('asks for a rehash when the parameters changed', async () => {
    const old = await createHasher(argon2).hash('pw one two three');
    assert.deepEqual(await createHasher(argon2Stronger).verify(old, 'pw one two three'), {
      ok: true,
      needsRehash: true,
    });
    const oldScrypt = await createHasher(scrypt).hash('pw one two three');
    assert.deepEqual(await createHasher({ ...scrypt, logN: 11 }).verify(oldScrypt, 'pw one two three'), {
      ok: true,
      needsRehash: true,
    });
  });

  it("verifies the reference's argon2 hashes (argon2-cffi parameters), including its 256-character truncation", async () => {
    // argon2-cffi ≥ 21.2 defaults: t=3, m=65536, p=4, 32-byte hash, 16-byte salt; the reference hashed password[:256].
    const reference = { type: 2, timeCost: 3, memoryCost: 65536, parallelism: 4, hashLength: 32 } as const;
    const hasher = createHasher(argon2);
    const plain = await argon2Hash('imported password', reference);
    assert.deepEqual(await hasher.verify(plain, 'imported password'), { ok: true, needsRehash: true });
    const long = 'é'.repeat(300);
    const truncated = await argon2Hash('é'.repeat(256), reference);
    assert.deepEqual(await hasher.verify(truncated, long), { ok: true, needsRehash: true });
    assert.equal(
      (await hasher.verify(truncated, 'é'.repeat(299) + 'x')).ok,
      true,
      'beyond 256 the reference ignored the rest',
    );
    // Our own hashes are never matched by a prefix.
    const ours = await hasher.hash('é'.repeat(256));
    assert.equal((await hasher.verify(ours, long)).ok, false);
  });

  it('matches nothing against a malformed stored hash', async () => {
    const hasher = createHasher(argon2);
    for (const stored of ['', 'plaintext', '$argon2id$v=19$m=1,t=1,p=1$bad$bad', '$scrypt-kdf$AAAA']) {
      assert.deepEqual(await hasher.verify(stored, 'anything'), { ok: false, needsRehash: false });
    }
  });

  it('runs exactly one verification for a dummy check', async () => {
    let tasks = 0;
    const counting = { run: <T>(task: () => Promise<T>) => ((tasks += 1), task()) };
    const hasher = createHasher(argon2, counting);
    await hasher.verifyDummy('whatever');
    await hasher.verifyDummy('whatever again');
    assert.equal(tasks, 2);
  });
});

describe('hash queue', () => {
  it('runs at most `concurrency` tasks at once and refuses at once when the wait queue is full', async () => {
    const queue = createHashQueue({ concurrency: 2, maxWaiting: 1 });
    let active = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const task = () =>
      queue.run(async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise<void>((resolve) => releases.push(resolve));
        active--;
      });
    const running = [task(), task(), task()];
    await assert.rejects(task(), (e: unknown) => e instanceof UnavailableError && e.code === 'busy');
    assert.equal(queue.running, 2);
    assert.equal(queue.waiting, 1);
    while (releases.length > 0 || queue.running > 0) {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(running);
    assert.equal(peak, 2);
  });

  it('frees its place when a task fails', async () => {
    const queue = createHashQueue({ concurrency: 1, maxWaiting: 0 });
    await assert.rejects(
      queue.run(() => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await queue.run(() => Promise.resolve(7)), 7);
  });
});

/**
 * Password hash cost: one hash's time, and hashes per second with 1, 2 and 4 running at once.
 *   npx tsx bench/micro/hash.ts [passhash=argon2id:m=19456,t=2,p=1] [seconds=3]
 */
import { parsePassHash } from '../../src/config/settings.js';
import { createHasher } from '../../src/accounts/password-hashing.js';

const parsed = parsePassHash(process.argv[2] ?? 'argon2id:m=19456,t=2,p=1');
if (!parsed.ok) throw new Error(parsed.problem);
const seconds = Number(process.argv[3] ?? 3);
const hasher = createHasher(parsed.value);

const times: number[] = [];
for (let i = 0; i < 20; i++) {
  const t0 = performance.now();
  await hasher.hash(`password-${i}`);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const result: Record<string, number | string> = {
  passhash: process.argv[2] ?? 'argon2id:m=19456,t=2,p=1',
  median_ms: Number((times[10] ?? 0).toFixed(1)),
};
const stored = await hasher.hash('the password');
for (const concurrency of [1, 2, 4]) {
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await hasher.verify(stored, 'the password');
        done++;
      }
    }),
  );
  result[`verifies_per_s_at_${concurrency}`] = Math.round(done / seconds);
}
console.log(JSON.stringify(result));

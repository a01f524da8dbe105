/**
 * The login back-off on the admission store (docs/design.md#lock-out-and-login-back-off): the n-th consecutive failed
 * password check for an identity waits min(1.5^(n−1), 40) s, counted in the same store as the rate limits so it
 * holds across workers and instances. The wait is a timer (`sleep`), so no worker is held busy.
 */
import type { Clock, LoginBackoff, Sleep } from '../domain/ports.js';
import { backoffKey } from './buckets.js';
import type { AdmissionStore } from './store.js';
import { backoffWaitMs } from './store.js';

export function storeLoginBackoff(store: AdmissionStore, clock: Clock, sleep: Sleep): LoginBackoff {
  return {
    async failed(identity) {
      const n = await store.failure(backoffKey(identity), clock.now());
      const waitMs = backoffWaitMs(n);
      if (waitMs > 0) await sleep(waitMs);
    },
    succeeded: (identity) => store.success(backoffKey(identity)),
  };
}

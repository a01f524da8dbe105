import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startCleanup } from '../../src/services/store/cleanup-timer.js';
import type { LogFields, Logger } from '../../src/log/logger.js';
import type { PurgeReport } from '../../src/services/store/cleanup.js';
import { FrozenClock } from '../helpers/clock.js';

function recorder(): Logger & { lines: Array<[string, string, LogFields | undefined]> } {
  const lines: Array<[string, string, LogFields | undefined]> = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push([level, message, fields]);
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('the purge timer', () => {
  it('purges with the injected clock and logs what it deleted, or that another instance is at it', async () => {
    const clock = new FrozenClock(1_800_000_000_000);
    const seen: number[] = [];
    const reports: PurgeReport[] = [
      { ran: true, deleted: { sessions: 3 } },
      { ran: false, deleted: {} },
    ];
    const log = recorder();
    const timer = startCleanup(
      {
        purgeExpired: (now) => {
          seen.push(now);
          return Promise.resolve(reports.shift() ?? { ran: true, deleted: {} });
        },
      },
      clock,
      log,
    );
    try {
      await timer.runOnce();
      clock.advance(3_600_000);
      await timer.runOnce();
      assert.deepEqual(seen, [1_800_000_000_000, 1_800_003_600_000]);
      assert.deepEqual(
        log.lines.map(([level, message]) => [level, message]),
        [
          ['info', 'purged expired rows'],
          ['info', 'purge skipped: another instance is purging'],
        ],
      );
    } finally {
      timer.stop();
    }
  });

  it('logs a failed purge as a warning and keeps going', async () => {
    const log = recorder();
    const timer = startCleanup({ purgeExpired: () => Promise.reject(new Error('down')) }, new FrozenClock(), log);
    try {
      await timer.runOnce();
      assert.equal(log.lines[0]?.[0], 'warn');
      assert.deepEqual(log.lines[0]?.[2], { error: 'down' });
    } finally {
      timer.stop();
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { startCleanup } from '../../src/services/store/cleanup-timer.js';
import type { LogFields, Logger } from '../../src/log/logger.js';
import type { PurgeReport } from '../../src/services/store/cleanup.js';
import { FrozenClock } from '../helpers/clock.js';

/** The defaults of purgeinterval and purgebatch. */
const HOURLY = { intervalMinutes: 60, batch: 100 };

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
      HOURLY,
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
    const timer = startCleanup(
      { purgeExpired: () => Promise.reject(new Error('down')) },
      new FrozenClock(),
      log,
      HOURLY,
    );
    try {
      await timer.runOnce();
      assert.equal(log.lines[0]?.[0], 'warn');
      assert.deepEqual(log.lines[0]?.[2], { error: 'down' });
    } finally {
      timer.stop();
    }
  });

  it('purges a minute after the start and then every purgeinterval minutes; with 0, never on its own', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    // Lets a started purge settle (setImmediate is not mocked), as the minutes between two purges would.
    const tick = async (ms: number) => {
      mock.timers.tick(ms);
      await new Promise((resolve) => setImmediate(resolve));
    };
    const runs = { every: 0, never: 0 };
    const counting = (name: keyof typeof runs) => ({
      purgeExpired: () => {
        runs[name] += 1;
        return Promise.resolve({ ran: true, deleted: {} });
      },
    });
    const every = startCleanup(counting('every'), new FrozenClock(), recorder(), { intervalMinutes: 5, batch: 100 });
    const never = startCleanup(counting('never'), new FrozenClock(), recorder(), { intervalMinutes: 0, batch: 100 });
    try {
      await tick(59_999);
      assert.deepEqual(runs, { every: 0, never: 0 });
      await tick(1);
      assert.deepEqual(runs, { every: 1, never: 0 });
      await tick(5 * 60_000);
      assert.deepEqual(runs, { every: 2, never: 0 });
      await tick(24 * 3_600_000);
      assert.equal(runs.never, 0);
    } finally {
      every.stop();
      never.stop();
      mock.timers.reset();
    }
  });

  it("deletes purgebatch rows a statement and logs a long purge's progress every 100 batches", async () => {
    const log = recorder();
    const batches: number[] = [];
    const timer = startCleanup(
      {
        purgeExpired: (_now, options) => {
          batches.push(options?.batch ?? 0);
          for (let deleted = 10; deleted <= 2_500; deleted += 10) options?.progress?.('sessions', deleted);
          return Promise.resolve({ ran: true, deleted: { sessions: 2_500 } });
        },
      },
      new FrozenClock(),
      log,
      { intervalMinutes: 60, batch: 10 },
    );
    try {
      await timer.runOnce();
      assert.deepEqual(batches, [10]);
      assert.deepEqual(
        log.lines.map(([, message, fields]) => [message, fields?.['table'], fields?.['deleted']]),
        [
          ['purging expired rows', 'sessions', 1_000],
          ['purging expired rows', 'sessions', 2_000],
          ['purged expired rows', undefined, { sessions: 2_500 }],
        ],
      );
      assert.equal(typeof log.lines[2]?.[2]?.['duration_ms'], 'number');
    } finally {
      timer.stop();
    }
  });

  it('tells the metrics how each purge ended, with the rows it deleted', async () => {
    const seen: Array<[string, Readonly<Record<string, number>>]> = [];
    const outcomes = [
      () => Promise.resolve({ ran: true, deleted: { sessions: 4 } }),
      () => Promise.resolve({ ran: false, deleted: {} }),
      () => Promise.reject(new Error('down')),
    ];
    const timer = startCleanup(
      { purgeExpired: () => (outcomes.shift() ?? (() => Promise.resolve({ ran: true, deleted: {} })))() },
      new FrozenClock(),
      recorder(),
      { intervalMinutes: 60, batch: 100 },
      {
        purge: (result, deleted, seconds) => {
          assert.ok(seconds >= 0);
          seen.push([result, deleted]);
        },
      },
    );
    try {
      for (let i = 0; i < 3; i++) await timer.runOnce();
      assert.deepEqual(seen, [
        ['ran', { sessions: 4 }],
        ['skipped', {}],
        ['failed', {}],
      ]);
    } finally {
      timer.stop();
    }
  });
});

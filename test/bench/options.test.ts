/** The bench's flags: the whole run's defaults, and the quick runs that replaced the separate scripts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOT_READS, parseOptions } from '../../bench/lib/options.js';
import type { BenchOptions } from '../../bench/lib/options.js';

const parsed = (argv: readonly string[]): BenchOptions => {
  const options = parseOptions(argv);
  assert.notEqual(options, 'help');
  return options as BenchOptions;
};

describe('npm run bench flags', () => {
  it('run the whole bench by default', () => {
    const options = parsed([]);
    assert.equal(options.quick, null);
    assert.deepEqual([options.workers, options.concurrency, options.seconds], [[1, 2], [16, 64], 3]);
  });

  it('measure a few actions on one server with --quick, --hot-reads and --logins', () => {
    const quick = parsed(['--quick', 'session-exists', '--rounds=3']);
    assert.deepEqual(quick.quick?.actions, ['session-exists']);
    assert.equal(quick.quick.rounds, 3);
    assert.deepEqual([quick.workers, quick.concurrency, quick.seconds], [[1], [16], 10]);
    const hot = parsed(['--hot-reads', '--node-arg=--cpu-prof', '--set', 'AUTHSVC_METRICS=1']);
    assert.deepEqual(hot.quick?.actions, HOT_READS);
    assert.deepEqual(hot.quick.nodeArgs, ['--cpu-prof']);
    assert.deepEqual(hot.serverEnv, { AUTHSVC_METRICS: '1' });
    assert.equal(hot.seconds, 8);
    const logins = parsed(['--logins', '--workers=2']);
    assert.deepEqual(logins.quick?.actions, ['user-login']);
    assert.deepEqual([logins.workers, logins.concurrency], [[2], [8]]);
  });

  it('count instructions instead of load with --instructions, 300 requests unless --requests says', () => {
    assert.equal(parsed(['--hot-reads']).quick?.instructions, null);
    assert.equal(parsed(['--hot-reads', '--instructions']).quick?.instructions, 300);
    assert.equal(parsed(['--quick', 'session-new', '--instructions', '--requests=50']).quick?.instructions, 50);
  });

  it('build a large database and measure against an empty one with --scale, a million users unless it says', () => {
    assert.equal(parsed([]).scale, null);
    assert.deepEqual(parsed(['--scale']).scale, { users: 1_000_000, instructions: null });
    assert.equal(parsed(['--scale', '--db', 'sqlite,pg']).scale?.users, 1_000_000);
    assert.deepEqual(parsed(['--scale', '--db', 'sqlite,pg']).databases, ['sqlite', 'pg']);
    assert.equal(parsed(['--scale', '20000']).scale?.users, 20_000);
    assert.equal(parsed(['--scale=5000', '--db=mysql']).scale?.users, 5000);
    assert.throws(() => parseOptions(['--scale=0']), /positive integers/);
    assert.throws(() => parseOptions(['--scale', '--hot-reads']), /a run of its own/);
  });

  it('count instructions at scale with --scale --instructions, 300 requests unless --requests says', () => {
    assert.deepEqual(parsed(['--scale', '--instructions']).scale, { users: 1_000_000, instructions: 300 });
    assert.deepEqual(parsed(['--scale=9', '--instructions', '--requests=20']).scale, { users: 9, instructions: 20 });
    assert.equal(parsed(['--scale', '--instructions']).quick, null);
  });

  it('refuse flags that do not go together', () => {
    assert.throws(() => parseOptions(['--hot-reads', '--logins']), /one of --quick/);
    assert.throws(() => parseOptions(['--quick', 'session-exists', '--actions', 'session-new']), /--actions is for/);
    assert.throws(() => parseOptions(['--rounds', '2']), /go with --quick/);
    assert.throws(() => parseOptions(['--instructions']), /go with --quick/);
    assert.throws(() => parseOptions(['--hot-reads', '--instructions', '--wrk']), /choose one/);
    assert.throws(() => parseOptions(['--hot-reads', '--instructions', '--requests=0']), /positive integers/);
    assert.throws(() => parseOptions(['--quick', 'session-teleport']), /unknown action "session-teleport"/);
  });
});

/**
 * SQLite group commit (src/services/store/sqlite.ts): the hot writes of one event-loop turn share one
 * transaction, and each still answers for itself.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/services/store/db.js';
import { openSqlite } from '../../src/services/store/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'authsvc-group-commit-'));
let db: Db;

before(async () => {
  db = openSqlite({ dialect: 'sqlite', filename: join(dir, 'g.sqlite') });
  await db.knex.raw('CREATE TABLE things (id integer primary key, name text not null unique)');
});

/** Frames in the WAL (PASSIVE), or empties it (TRUNCATE): each commit appends every page it changed. */
async function walFrames(mode: 'TRUNCATE' | 'PASSIVE'): Promise<number> {
  const rows: Array<{ log: number }> = await db.knex.raw(`PRAGMA wal_checkpoint(${mode})`);
  return rows[0]?.log ?? -1;
}
after(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = () => db.hot('things_insert', () => db.knex('things').insert({ id: 0, name: '' }));
async function count(): Promise<number> {
  const row = await db.knex('things').count('* as n').first();
  return Number(row?.['n']);
}

describe('SQLite group commit', () => {
  it('runs a lone write at once, as its own commit', async () => {
    assert.equal(await insert().write([1, 'one']), 1);
    assert.equal(await count(), 1);
  });

  it('commits the writes of one turn together, each answering its own changes', async () => {
    const statement = insert();
    await walFrames('TRUNCATE');
    const results = await Promise.all([statement.write([2, 'two']), statement.write([3, 'three'])]);
    const together = await walFrames('PASSIVE');
    await walFrames('TRUNCATE');
    assert.deepEqual(results, [1, 1]);
    // The same two writes in two turns: two commits, each writing the table's and the index's page.
    await statement.write([100, 'apart 1']);
    await statement.write([101, 'apart 2']);
    const apart = await walFrames('PASSIVE');
    assert.ok(together > 0 && together < apart, `one commit (${together} WAL frames) rather than two (${apart})`);
    await db.knex('things').whereIn('id', [100, 101]).delete();
    assert.equal(await count(), 3);
  });

  it('fails only the statement that fails: the others of its turn are committed', async () => {
    const statement = insert();
    const results = await Promise.allSettled([
      statement.write([4, 'four']),
      statement.write([5, 'one']), // the name is taken: UNIQUE constraint
      statement.write([6, 'six']),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
    const names = (await db.knex('things').orderBy('id').pluck('name')) as string[];
    assert.deepEqual(names, ['one', 'two', 'three', 'four', 'six']);
  });

  it('waits for a knex transaction open on the shared connection, and is not part of it', async () => {
    const statement = insert();
    let written: Promise<number> | undefined;
    await assert.rejects(
      db.knex.transaction(async (trx) => {
        await trx('things').insert({ id: 7, name: 'rolled back' });
        written = statement.write([8, 'eight']);
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await written, 1);
    const names = (await db.knex('things').orderBy('id').pluck('name')) as string[];
    assert.deepEqual(names.slice(-2), ['six', 'eight']);
  });
});

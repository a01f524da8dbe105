import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { unpeekable } from '../../src/services/store/sqlite.js';

/** docs/design.md#sqlite-hot-joins-were-planned-on-every-run */
describe('SQLite hot statements: placeholders under a unary plus', () => {
  it('puts a plus before each placeholder and leaves quoted text and names alone', () => {
    assert.equal(
      unpeekable("select `a?`, \"b?\" from t where c = ? and d = 'x?''?' and e in (?, ?)"),
      "select `a?`, \"b?\" from t where c = +? and d = 'x?''?' and e in (+?, +?)",
    );
  });

  it('keeps what a comparison means: the column affinity still applies to the value', () => {
    const db = new Database(':memory:');
    db.exec("create table t (id integer primary key, name text, n integer); insert into t values (1, '5', 7)");
    const cases: Array<[string, unknown[]]> = [
      ['select id from t where name = ?', [5]],
      ['select id from t where n = ?', ['7']],
      ['select id from t where n > ?', ['6']],
      ['select id from t where name = ? and n = ?', ['5', 7]],
      ['select ? as v', [null]],
    ];
    for (const [sql, bindings] of cases)
      assert.deepEqual(db.prepare(unpeekable(sql)).all(...bindings), db.prepare(sql).all(...bindings), sql);
    db.close();
  });

  it('gives the same rows as the statement it came from, whatever the literals and names hold', () => {
    const db = new Database(':memory:');
    const quoted = (quote: string) =>
      fc
        .string({ unit: fc.constantFrom('?', 'a', ' ', "'", '"', '`', ','), maxLength: 6 })
        .map((text) => `${quote}${text.replaceAll(quote, quote + quote)}${quote}`);
    const value = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null));
    /** One item of a select list: its SQL and the values its placeholders take. */
    const item = fc.oneof(
      value.map((v) => ({ sql: '?', values: [v] })),
      quoted("'").map((text) => ({ sql: text, values: [] })),
      fc.tuple(value, quoted('"')).map(([v, name]) => ({ sql: `? as ${name}`, values: [v] })),
      fc.tuple(quoted("'"), quoted('`')).map(([text, name]) => ({ sql: `${text} as ${name}`, values: [] })),
    );
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 6 }), (items) => {
        const sql = `select ${items.map((i) => i.sql).join(', ')}`;
        const values = items.flatMap((i) => i.values);
        assert.deepEqual(
          db
            .prepare(unpeekable(sql))
            .raw()
            .all(...values),
          db
            .prepare(sql)
            .raw()
            .all(...values),
        );
      }),
    );
    db.close();
  });
});

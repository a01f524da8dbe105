/**
 * Outside authsvc's store: statements on a database server (create and drop test databases) and the URL
 * of a target. Free of node:test, so that bench/ can use it too.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { DatabaseTarget, MysqlTarget, PgTarget } from '../../src/services/store/url.js';

/** Runs one statement on the server the URL names (a connection of its own, closed after). */
export async function adminQuery(target: PgTarget | MysqlTarget, sql: string): Promise<void> {
  if (target.dialect === 'pg') {
    const client = new pg.Client({
      host: target.socketPath ?? target.host,
      port: target.port,
      user: target.user ?? undefined,
      password: target.password ?? undefined,
      database: target.database,
    });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
    return;
  }
  const connection = await mysql.createConnection({
    host: target.host,
    port: target.port,
    user: target.user ?? undefined,
    password: target.password ?? undefined,
    database: target.database,
  });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/** The URL of a target, for a spawned `authsvc` process (AUTHSVC_AUTHDB). */
export function urlOf(target: DatabaseTarget): string {
  if (target.dialect === 'sqlite') return `sqlite:///${target.filename}`;
  const auth =
    target.user === null
      ? ''
      : `${encodeURIComponent(target.user)}${target.password === null ? '' : `:${encodeURIComponent(target.password)}`}@`;
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const scheme = target.dialect === 'pg' ? 'postgresql' : target.flavour;
  return `${scheme}://${auth}${host}:${target.port}/${encodeURIComponent(target.database)}`;
}

/**
 * Log lines are written once per turn of the event loop (src/log/writer.ts), at its end. A line queued
 * in that end phase itself (after a SQLite group commit, src/services/store/sqlite.ts, which also runs there)
 * goes out at the end of the next turn, and a reply sent in that phase can reach an in-process client
 * before it: two turns see every line of the requests answered so far written.
 */
export async function logsWritten(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

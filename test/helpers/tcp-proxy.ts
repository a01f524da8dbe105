/**
 * A TCP proxy on 127.0.0.1 in front of a database, so that fault tests can cut the database off
 * without touching the shared server (docs/design.md#tests-use-real-components: fault tests cut a proxy, never the
 * service).
 * - `cut()`: every connection is reset and new ones are reset as soon as they arrive (a server that
 *   is down or restarting);
 * - `blackhole()`: connections stay open but nothing passes (a network that drops packets);
 * - `refuse()`: every connection is reset and the port stops listening, so new ones are refused
 *   (ECONNREFUSED: a database host whose server is not running);
 * - `drop()`: connections stay open and keep reading, but what they read is thrown away, both ways (a
 *   link that silently loses bytes); new connections reach the server and lose their bytes too;
 * - `restore()`: traffic flows again; connections held by the black hole are reset, those of `drop()`
 *   forward again, on the same sockets (whatever was lost stays lost).
 */
import { createConnection, createServer } from 'node:net';
import type { Socket } from 'node:net';

export type ProxyMode = 'open' | 'cut' | 'blackhole' | 'refuse' | 'drop';

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  readonly mode: ProxyMode;
  cut(): void;
  blackhole(): void;
  refuse(): void;
  drop(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'open';
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  const held = new Set<Socket>();
  type Pair = { client: Socket; upstream: Socket | null };
  const dropping = new Set<Pair>();
  const discard = (): void => undefined;

  const startDropping = (pair: Pair): void => {
    pair.client.unpipe();
    pair.upstream?.unpipe();
    // unpipe() pauses; reading on into a listener that ignores it loses the bytes instead of buffering them.
    pair.client.on('data', discard).resume();
    pair.upstream?.on('data', discard).resume();
    dropping.add(pair);
  };

  const reset = (socket: Socket | null): void => {
    if (socket !== null && !socket.destroyed) socket.resetAndDestroy();
  };

  const server = createServer((client) => {
    client.on('error', () => undefined);
    if (mode === 'cut') {
      reset(client);
      return;
    }
    if (mode === 'blackhole') {
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = createConnection({ host: targetHost, port: targetPort });
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    upstream.on('error', () => reset(client));
    client.on('error', () => reset(upstream));
    const forget = (): void => {
      pairs.delete(pair);
      dropping.delete(pair);
    };
    client.on('close', () => {
      forget();
      reset(upstream);
    });
    upstream.on('close', () => {
      forget();
      if (!client.destroyed) client.end();
    });
    client.pipe(upstream);
    upstream.pipe(client);
    if (mode === 'drop') startDropping(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');

  const cut = (): void => {
    mode = 'cut';
    for (const pair of pairs) {
      reset(pair.client);
      reset(pair.upstream);
    }
    pairs.clear();
    dropping.clear();
    for (const socket of held) reset(socket);
    held.clear();
  };

  return {
    host: '127.0.0.1',
    port: address.port,
    get mode() {
      return mode;
    },
    cut,
    blackhole() {
      mode = 'blackhole';
      for (const pair of pairs) {
        // Stop both directions; the sockets stay open, as over a dead network link.
        pair.client.unpipe();
        pair.upstream?.unpipe();
        pair.client.pause();
        pair.upstream?.pause();
        held.add(pair.client);
        if (pair.upstream !== null) held.add(pair.upstream);
      }
      pairs.clear();
      dropping.clear();
    },
    refuse() {
      cut();
      mode = 'refuse';
      // Stop listening at once; the port is ours again at restore() (nothing else binds it in between).
      server.close();
    },
    drop() {
      mode = 'drop';
      for (const pair of pairs) if (!dropping.has(pair)) startDropping(pair);
    },
    restore() {
      if (mode === 'refuse') server.listen(address.port, '127.0.0.1');
      mode = 'open';
      for (const socket of held) reset(socket);
      held.clear();
      for (const pair of dropping) {
        pair.client.off('data', discard);
        pair.upstream?.off('data', discard);
        if (pair.upstream !== null) {
          pair.client.pipe(pair.upstream);
          pair.upstream.pipe(pair.client);
        }
      }
      dropping.clear();
    },
    async close() {
      const listening = mode !== 'refuse';
      cut();
      if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

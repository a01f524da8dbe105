/**
 * A TCP proxy on 127.0.0.1 in front of a database, so that fault tests can cut the database off
 * without touching the shared server (DESIGN: fault tests cut a proxy, never the service).
 * - `cut()`: every connection is reset and new ones are reset as soon as they arrive (a server that
 *   is down or restarting);
 * - `blackhole()`: connections stay open but nothing passes (a network that drops packets);
 * - `refuse()`: every connection is reset and the port stops listening, so new ones are refused
 *   (ECONNREFUSED: a database host whose server is not running);
 * - `restore()`: traffic flows again; connections held by the black hole are reset.
 */
import { createConnection, createServer } from 'node:net';
import type { Socket } from 'node:net';

export type ProxyMode = 'open' | 'cut' | 'blackhole' | 'refuse';

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  readonly mode: ProxyMode;
  cut(): void;
  blackhole(): void;
  refuse(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'open';
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  const held = new Set<Socket>();

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
    const pair = { client, upstream };
    pairs.add(pair);
    upstream.on('error', () => reset(client));
    client.on('error', () => reset(upstream));
    const forget = (): void => {
      pairs.delete(pair);
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
    },
    refuse() {
      cut();
      mode = 'refuse';
      // Stop listening at once; the port is ours again at restore() (nothing else binds it in between).
      server.close();
    },
    restore() {
      if (mode === 'refuse') server.listen(address.port, '127.0.0.1');
      mode = 'open';
      for (const socket of held) reset(socket);
      held.clear();
    },
    async close() {
      const listening = mode !== 'refuse';
      cut();
      if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

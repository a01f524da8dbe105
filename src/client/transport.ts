/**
 * One POST over node:http or node:https with a keep-alive agent, a deadline and an optional CA
 * (fetch cannot take a private CA without a dependency the client must not have).
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface RawReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export class TransportError extends Error {
  constructor(
    readonly reason: 'timeout' | 'network' | 'aborted',
    message: string,
  ) {
    super(message);
  }
}

export interface Transport {
  post(body: string, timeoutMs: number, signal?: AbortSignal): Promise<RawReply>;
  close(): void;
}

/** An idle connection is closed after this, or sooner when the server announces a shorter keep-alive. */
const IDLE_TIMEOUT_MS = 30_000;

export function createTransport(url: URL, ca?: string | Uint8Array): Transport {
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:')
    throw new TypeError(`authsvc client: ${url.protocol} is not http: or https:`);
  // node:tls takes any Uint8Array; its declared type is narrower (Buffer). A Buffer passes as it is, another
  // Uint8Array as a Buffer over the same memory: no copy.
  const caOption =
    ca === undefined || typeof ca === 'string' || Buffer.isBuffer(ca)
      ? ca
      : Buffer.from(ca.buffer, ca.byteOffset, ca.byteLength);
  // A server closes a connection it has kept idle for its keep-alive time, and a request sent on it at that moment
  // fails with "socket hang up". Node's agent closes idle connections a second before the time the server announces
  // only when it has an idle `timeout` of its own (docs/design.md#the-clients-idle-connections).
  const keepAlive = { keepAlive: true, timeout: IDLE_TIMEOUT_MS };
  const agent = secure
    ? new HttpsAgent({ ...keepAlive, ...(caOption === undefined ? {} : { ca: caOption }) })
    : new HttpAgent(keepAlive);
  const send = secure ? httpsRequest : httpRequest;

  return {
    post(body, timeoutMs, signal) {
      return new Promise((resolve, reject) => {
        const req = send(
          url,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              clearTimeout(timer);
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                text: Buffer.concat(chunks).toString('utf8'),
              });
            });
            res.on('error', fail);
          },
        );
        const timer = setTimeout(() => {
          req.destroy(new TransportError('timeout', `authsvc did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        function fail(error: Error): void {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(
            error instanceof TransportError
              ? error
              : new TransportError('network', `cannot reach authsvc at ${url.origin}: ${error.message}`),
          );
        }
        function onAbort(): void {
          req.destroy(new TransportError('aborted', 'the request was aborted'));
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        req.on('error', fail);
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

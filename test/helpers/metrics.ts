/**
 * Reading /metrics as Prometheus would: the text format parsed into samples, and a request from a
 * chosen local address (127.0.0.0/8 is all this machine's, so 127.0.0.2 is a peer that is not
 * 127.0.0.1).
 */
import { request } from 'node:http';
import type { RawResponse } from './http.js';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Every sample line of a scrape (comments skipped); throws on a line that is not a sample. */
export function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const [, name = '', labelText = '', value = ''] = match;
    const labels: Record<string, string> = {};
    for (const pair of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ''] = pair[2] ?? '';
    }
    samples.push({ name, labels, value: Number(value) });
  }
  return samples;
}

/** The value of the one sample with this name and exactly these labels (0 when absent). */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  const found = samples.filter(
    (s) =>
      s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`several samples ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** GET a path with a given Host header, from a given local address. */
export function getFrom(
  url: string,
  path: string,
  options: { readonly localAddress?: string; readonly host?: string } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: 'GET',
        path,
        agent: false,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: { host: options.host ?? target.host },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

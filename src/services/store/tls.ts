/** TLS options for the database drivers from the URL's sslmode / ssl_mode (see url-server.ts). */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { TlsSetting } from './url.js';

export function tlsOptions(tls: TlsSetting): ConnectionOptions | undefined {
  if (tls.mode === 'off') return undefined;
  return {
    rejectUnauthorized: tls.verify !== 'none',
    ...(tls.caFile === null ? {} : { ca: readFileSync(tls.caFile, 'utf8') }),
    // verify-ca / VERIFY_CA: the chain is checked, the host name is not.
    ...(tls.verify === 'ca' ? { checkServerIdentity: () => undefined } : {}),
  };
}

/**
 * The decoder of every configuration item, in the order start-up reports their problems, plus the
 * few checks that belong to one item (a Fernet keyring, a database URL, an IP address…) or to two
 * (the TLS certificate and key). load.ts assembles the decoded values into a Config.
 */
import { isIP } from 'node:net';
import { normaliseHost } from '../protocol/addresses.js';
import { parseRateLimits } from '../services/admission/index.js';
import type { RatePolicy } from '../services/admission/index.js';
import { actionNames, parseKeyring } from '../protocol/index.js';
import type { Keyring } from '../protocol/index.js';
import { NOTIFY_KINDS } from '../domain/notify-kinds.js';
import type { NotifyKind } from '../domain/notify-kinds.js';
import { parseWebhookSecret } from '../log/webhooks.js';
import { LOG_LEVELS } from '../log/levels.js';
import type { LogLevel } from '../log/levels.js';
import { parseAddressRange } from '../services/metrics/peers.js';
import type { AddressRange } from '../services/metrics/peers.js';
import { parseDatabaseUrl, redactUrl } from '../services/store/url.js';
import type { DatabaseTarget } from '../services/store/url.js';
import type { Convert, Decoder, ItemContext } from './decoders.js';
import { asText, bad, fileContent, flag, int, list, ok, optional, path, required, structured } from './decoders.js';
import type { Retrieved } from './retrieve.js';
import { parsePassHash, parsePassPolicy } from './settings.js';

const keyring: Convert<Keyring> = (text, item) => {
  const parsed = parseKeyring(text);
  if (parsed !== null) return ok(parsed);
  return bad(
    `${item.label} is not a Fernet key (32 bytes of URL-safe base64, 44 characters; several separated by ";") nor a file holding one`,
  );
};

const atLeast8: Convert<string> = (text, item) =>
  text.length >= 8 ? ok(text) : bad(`${item.label} must be at least 8 characters`);

/** The target, and the URL to show in messages: the password never, whatever the URL's spelling. */
const databaseUrl: Convert<{ target: DatabaseTarget; redacted: string }> = (text, item) => {
  const parsed = parseDatabaseUrl(text, item.basedir);
  if (!parsed.ok) return bad(`${item.label} ${parsed.problem}`);
  const { target } = parsed;
  const password = target.dialect === 'sqlite' ? null : target.password;
  let redacted = redactUrl(text.trim());
  if (password !== null && password !== '') {
    for (const spelling of new Set([password, encodeURIComponent(password)]))
      redacted = redacted.split(spelling).join('***');
  }
  return ok({ target, redacted });
};

const ipAddress: Convert<string> = (text, item) =>
  isIP(text) !== 0 || text === 'localhost' ? ok(text) : bad(`${item.label} must be an IP address, not "${text}"`);

/** `json` or `pretty`; unset (null) lets the logger choose by whether stdout is a terminal. */
const logFormat: Convert<'json' | 'pretty'> = (text, item) => {
  const value = text.toLowerCase();
  return value === 'json' || value === 'pretty'
    ? ok(value)
    : bad(`${item.label} must be json or pretty, not "${text}"`);
};

/** One of the logger's levels, in any case. */
const logLevel: Convert<LogLevel> = (text, item) => {
  const value = text.trim().toLowerCase();
  const level = LOG_LEVELS.find((known) => known === value);
  return level === undefined ? bad(`${item.label} must be one of ${LOG_LEVELS.join(', ')}, not "${text}"`) : ok(level);
};

/** `none` turns the compromised-password check off: null. */
const httpUrlOrNone: Convert<string | null> = (text, item) => {
  if (text.toLowerCase() === 'none') return ok(null);
  if (/^https?:\/\/[^\s]+$/i.test(text) && URL.canParse(text)) return ok(text);
  return bad(`${item.label} must be an http(s) URL or "none", not "${text}"`);
};

/** `none` turns rate limiting off: null. Action keys are checked against the actions the server knows. */
const rateLimits: Convert<RatePolicy | null> = (text, item) => {
  const parsed = parseRateLimits(text, actionNames);
  return parsed.ok ? ok(parsed.value) : bad(`${item.label}: ${parsed.problems.join('; ')}`);
};

/** ioredis URLs: `redis://` or `rediss://` (TLS), user and password in the URL. */
const redisUrl: Convert<string> = (text, item) =>
  /^rediss?:\/\/[^\s]*$/i.test(text) && URL.canParse(text)
    ? ok(text)
    : bad(`${item.label} must be a redis:// or rediss:// URL, not "${text}"`);

/** An http(s) URL to POST the audit events to. */
const webhookUrl: Convert<string> = (text, item) =>
  /^https?:\/\/[^\s]+$/i.test(text) && URL.canParse(text)
    ? ok(text)
    : bad(`${item.label} must be an http(s) URL, not "${text}"`);

/** The Standard Webhooks form, decoded: the HMAC key is the bytes, not the text. */
const webhookSecret: Convert<Buffer> = (text, item) => {
  const parsed = parseWebhookSecret(text);
  return parsed.ok
    ? ok(parsed.key)
    : bad(`${item.label} ${parsed.problem} (the Standard Webhooks "whsec_<base64>" form)`);
};

/** `on`, or `none` to answer failed password checks without the growing wait. */
const onOrNone: Convert<boolean> = (text, item) => {
  const word = text.trim().toLowerCase();
  if (word === 'on' || word === 'none') return ok(word === 'on');
  return bad(`${item.label} must be "on" or "none", not "${text}"`);
};

/** IP addresses or CIDR ranges separated by ';', at least one (an empty list would be metrics nobody may read). */
const addressRanges: Convert<readonly AddressRange[]> = (text, item) => {
  const parts = text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return bad(`${item.label} must name at least one IP address or CIDR range`);
  const ranges: AddressRange[] = [];
  for (const part of parts) {
    const range = parseAddressRange(part);
    if (range === null) return bad(`${item.label}: "${part}" is not an IP address or CIDR range`);
    ranges.push(range);
  }
  return ok(ranges);
};

/**
 * A web origin a passkey ceremony may come from: https, or http on a loopback host (browsers give WebAuthn only to
 * secure contexts). Kept as the browser writes it in clientDataJSON: scheme, host, port when not the default.
 */
const webOrigin: Convert<readonly string[]> = (text, item) => {
  const origins: string[] = [];
  for (const part of text.split(';').map((p) => p.trim())) {
    if (part === '') continue;
    const url = URL.canParse(part) ? new URL(part) : null;
    const loopback = url !== null && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (url === null || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.origin !== part)
      return bad(
        `${item.label}: "${part}" is not a web origin (https://host[:port], or http:// on localhost; no path)`,
      );
    origins.push(url.origin);
  }
  return origins.length > 0 ? ok(origins) : bad(`${item.label} must name at least one origin`);
};

/** A relying-party id: a host name, lower case, no port or scheme. */
const rpId: Convert<string> = (text, item) => {
  const host = text.trim().toLowerCase();
  return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)
    ? ok(host)
    : bad(`${item.label} must be a host name such as example.com, not "${text}"`);
};

/** The security mails to send (docs/design.md#security-mail): kinds separated by ';', or all. */
const notifyKinds: Convert<readonly NotifyKind[]> = (text, item) => {
  const parts = text
    .split(';')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  if (parts.includes('all')) return ok(NOTIFY_KINDS);
  const unknown = parts.find((part) => !(NOTIFY_KINDS as readonly string[]).includes(part));
  if (unknown !== undefined) return bad(`${item.label} may name ${NOTIFY_KINDS.join(', ')} or all, not "${unknown}"`);
  return ok(NOTIFY_KINDS.filter((kind) => parts.includes(kind)));
};

export const ITEMS = {
  secret: required(keyring),
  piisalt: required(atLeast8),
  authdb: required(databaseUrl),
  listen: required(ipAddress),
  allowedhosts: required(list(normaliseHost, 'host')),
  permissions: required(path),
  tlscertfile: optional(fileContent),
  tlscertkey: optional(fileContent),
  pwnedurl: required(httpUrlOrNone),
  servername: required(asText),
  admin_email: optional(asText),
  admin_password: optional(asText),
  port: int(0, 65_535),
  debugmode: flag(),
  logformat: optional(logFormat),
  loglevel: required(logLevel),
  sessionexpiry: int(1, 3650),
  messagettl: int(1, 86_400),
  maxbodysize: int(1024, 64 * 1024 * 1024),
  userlocktime: int(1, 10_000_000),
  stepupwindow: int(1, 86_400),
  eventretention: int(0, 3650),
  notify: optional(notifyKinds),
  mfarequired: optional(list((part) => part.trim(), 'at least one role')),
  userlocktries: int(1, 1000),
  refreshgrace: int(0, 3600),
  workers: int(1, 64),
  purgeinterval: int(0, 10_080),
  purgebatch: int(100, 100_000),
  pwnedfailclosed: flag(),
  emailserver: required(asText),
  emailport: int(1, 65_535),
  emailuser: optional(asText),
  emailpass: optional(asText),
  emailsender: required(asText),
  emailtlsca: optional(fileContent),
  passpolicy: required(structured(parsePassPolicy)),
  passhash: required(structured(parsePassHash)),
  ratelimits: required(rateLimits),
  redisurl: optional(redisUrl),
  loginbackoff: required(onOrNone),
  metrics: flag(),
  metricsallow: required(addressRanges),
  testclock: optional(path),
  webhookurl: optional(webhookUrl),
  webhooksecret: optional(webhookSecret),
  passkeyorigins: optional(webOrigin),
  passkeyrpid: optional(rpId),
  passkeyrpname: optional(asText),
} satisfies Record<string, Decoder<unknown>>;

export type ItemName = keyof typeof ITEMS;
export type ItemValues = { readonly [K in ItemName]: (typeof ITEMS)[K] extends Decoder<infer T> ? T : never };

export interface DecodedItems {
  /** Every item that decoded; the others have a problem. */
  readonly values: Partial<ItemValues>;
  readonly problems: readonly string[];
}

/**
 * Decodes every item that was retrieved; one whose retrieval failed is skipped (its problem is
 * already listed), one the configuration-variables file lacks is a problem.
 */
export function decodeItems(
  retrieved: ReadonlyMap<string, Retrieved>,
  context: (name: ItemName) => ItemContext,
): DecodedItems {
  const values: Partial<Record<ItemName, unknown>> = {};
  const problems: string[] = [];
  for (const name of Object.keys(ITEMS) as ItemName[]) {
    const found = retrieved.get(name);
    if (found === undefined) problems.push(`the configuration-variables file has no item "${name}"`);
    if (found === undefined || 'problem' in found) continue;
    const decoded = (ITEMS[name] as Decoder<unknown>).decode(found.value, context(name));
    if (decoded.ok) values[name] = decoded.value;
    else problems.push(decoded.problem);
  }
  return { values: values as Partial<ItemValues>, problems };
}

/** Checks between items, on whether each was given (retrieved with a value), decoded or not. */
export function crossItemProblems(given: (name: ItemName) => boolean, label: (name: ItemName) => string): string[] {
  const problems: string[] = [];
  if (given('tlscertfile') !== given('tlscertkey'))
    problems.push(`${label('tlscertfile')} and ${label('tlscertkey')} must be given together`);
  // Unsigned events would let anyone who finds the URL forge them: no webhooks without a secret.
  if (given('webhookurl') && !given('webhooksecret'))
    problems.push(`${label('webhooksecret')} is required when ${label('webhookurl')} is set`);
  return problems;
}

export interface PasskeySettings {
  /** The relying party: passkeys are bound to it (the site's registrable domain or a host under it). */
  readonly rpId: string;
  /** What the browser shows the user when a passkey is made. */
  readonly rpName: string;
  /** The origins ceremonies may come from. */
  readonly origins: readonly string[];
}

/**
 * Passkeys are on when origins are given; the relying party id defaults to the first origin's host and must be each
 * origin's host or a domain above it (WebAuthn's rule, which the browser enforces too: checked here, at start).
 */
export function passkeySettings(
  v: Pick<ItemValues, 'passkeyorigins' | 'passkeyrpid' | 'passkeyrpname' | 'servername'>,
  label: (name: ItemName) => string,
): { readonly ok: true; readonly value: PasskeySettings | null } | { readonly ok: false; readonly problem: string } {
  if (v.passkeyorigins === null) {
    if (v.passkeyrpid !== null)
      return { ok: false, problem: `${label('passkeyrpid')} needs ${label('passkeyorigins')}` };
    return { ok: true, value: null };
  }
  const hosts = v.passkeyorigins.map((origin) => new URL(origin).hostname);
  const id = v.passkeyrpid ?? hosts[0] ?? '';
  const outside = v.passkeyorigins.filter((_, i) => {
    const host = hosts[i] ?? '';
    return host !== id && !host.endsWith(`.${id}`);
  });
  if (outside.length > 0)
    return {
      ok: false,
      problem: `${label('passkeyrpid')} "${id}" must be the host of each of ${label('passkeyorigins')} or a domain above it, not of ${outside.join(', ')}`,
    };
  return { ok: true, value: { rpId: id, rpName: v.passkeyrpname ?? v.servername, origins: v.passkeyorigins } };
}

import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** One credential held by the authenticator: an ES256 (P-256) key pair scoped to an RP ID. */
export interface SoftCredential {
  readonly id: string; // base64url, as the server sees it
  readonly rpId: string;
  readonly userHandle: string; // base64url of the options' user.id
  readonly discoverable: boolean;
  readonly backedUp: boolean;
  readonly privateKey: KeyObject;
  /** Last signature counter sent. */
  counter: number;
}

/**
 * What the user and the page do in one ceremony. The authenticator does as it is told, even against the
 * options (uv: false when verification is required, an origin not under the RP ID): a browser would not,
 * but an attacker's client would, and it is the server's checks these tests are for.
 */
export interface Ceremony {
  origin: string;
  /** User verified (biometric or PIN); default true, as a platform passkey does. */
  uv?: boolean;
  /** User present (touched); default true. */
  up?: boolean;
}

export interface RegisterCeremony extends Ceremony {
  /** The counter to start from; default 0. */
  counter?: number;
  /** A synced passkey: backup eligible and backed up (flags BE and BS) for the credential's life. */
  backedUp?: boolean;
}

export interface AuthenticateCeremony extends Ceremony {
  /** Which of the eligible credentials to use (the user's pick in the account chooser); default the first. */
  credentialId?: string;
  /** Send this counter instead of the next one, once (a cloned authenticator); the stored one is untouched. */
  counter?: number;
}

/** A value isoCBOR can encode (tiny-cbor's type; CBOR maps are JavaScript Maps). */
type Cbor = Parameters<typeof isoCBOR.encode>[0];

const ES256 = -7;
const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

/**
 * A platform authenticator in software, answering as `navigator.credentials.create()` / `.get()` would,
 * serialised with `toJSON()`. Attestation is always "none". Errors are the DOMExceptions a browser throws.
 */
export class SoftAuthenticator {
  readonly #credentials: SoftCredential[] = [];

  get credentials(): readonly SoftCredential[] {
    return this.#credentials;
  }

  register(options: PublicKeyCredentialCreationOptionsJSON, ceremony: RegisterCeremony): RegistrationResponseJSON {
    const rpId = options.rp.id ?? new URL(ceremony.origin).hostname;
    if (!options.pubKeyCredParams.some((p) => p.alg === ES256))
      throw new DOMException('no supported algorithm in pubKeyCredParams', 'NotSupportedError');
    // The spec has the browser refuse when the authenticator already holds an excluded credential for this RP.
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (this.#credentials.some((c) => c.rpId === rpId && excluded.has(c.id)))
      throw new DOMException('an excluded credential is on this authenticator', 'InvalidStateError');

    // residentKey wins over the older requireResidentKey; "preferred" gets a passkey, as platform authenticators do.
    const selection = options.authenticatorSelection;
    const residentKey = selection?.residentKey ?? (selection?.requireResidentKey ? 'required' : 'discouraged');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential: SoftCredential = {
      id: b64url(randomBytes(16)),
      rpId,
      userHandle: options.user.id,
      discoverable: residentKey !== 'discouraged',
      backedUp: ceremony.backedUp ?? false,
      privateKey,
      counter: ceremony.counter ?? 0,
    };

    const { x, y } = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, Cbor>([
      [1, 2], // kty: EC2
      [3, ES256], // alg
      [-1, 1], // crv: P-256
      [-2, Buffer.from(x ?? '', 'base64url')],
      [-3, Buffer.from(y ?? '', 'base64url')],
    ]);
    const rawId = Buffer.from(credential.id, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(rawId.length);
    const authData = Buffer.concat([
      authenticatorData(credential, ceremony, credential.counter, FLAG.AT),
      Buffer.alloc(16), // AAGUID: zeros, as with "none" attestation
      idLength,
      rawId,
      isoCBOR.encode(coseKey),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, Cbor>()],
        ['authData', authData],
      ]),
    );
    this.#credentials.push(credential);

    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: clientData('webauthn.create', options.challenge, ceremony.origin),
        attestationObject: b64url(attestationObject),
        // toJSON() adds these too, so that servers need not parse CBOR.
        authenticatorData: b64url(authData),
        publicKey: b64url(publicKey.export({ format: 'der', type: 'spki' })),
        publicKeyAlgorithm: ES256,
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: options.extensions?.credProps ? { credProps: { rk: credential.discoverable } } : {},
    };
  }

  authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    ceremony: AuthenticateCeremony,
  ): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(ceremony.origin).hostname;
    // With an allow list the page names the credentials; without one only discoverable ones can answer.
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const eligible = this.#credentials.filter(
      (c) => c.rpId === rpId && (allowed.size > 0 ? allowed.has(c.id) : c.discoverable),
    );
    const credential = ceremony.credentialId ? eligible.find((c) => c.id === ceremony.credentialId) : eligible[0];
    // A browser says no more than this whatever the reason (no credential, user cancelled), not to leak which.
    if (!credential) throw new DOMException('no eligible credential', 'NotAllowedError');

    let counter = ceremony.counter;
    if (counter === undefined) counter = ++credential.counter;
    const authData = authenticatorData(credential, ceremony, counter, 0);
    const clientDataJSON = clientData('webauthn.get', options.challenge, ceremony.origin);
    // ECDSA over authData || SHA-256(clientDataJSON); node's default DER encoding is what WebAuthn wants.
    const signature = sign('sha256', Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]), {
      key: credential.privateKey,
    });

    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        // Only a discoverable credential stores the user handle, and the server needs it to know whose it is.
        ...(credential.discoverable ? { userHandle: credential.userHandle } : {}),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}

/** A copy of an assertion with one signature byte changed: still well-formed DER, no longer valid. */
export function withBadSignature(response: AuthenticationResponseJSON): AuthenticationResponseJSON {
  const signature = Buffer.from(response.response.signature, 'base64url');
  signature[signature.length - 1] = (signature.at(-1) ?? 0) ^ 0x01; // the last byte of s
  return { ...response, response: { ...response.response, signature: b64url(signature) } };
}

/** RP ID hash | flags | counter, the part of authenticator data both ceremonies share. */
function authenticatorData(credential: SoftCredential, ceremony: Ceremony, counter: number, extra: number): Buffer {
  let flags = extra;
  if (ceremony.up ?? true) flags |= FLAG.UP;
  if (ceremony.uv ?? true) flags |= FLAG.UV;
  if (credential.backedUp) flags |= FLAG.BE | FLAG.BS;
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(counter, 1);
  return Buffer.concat([sha256(credential.rpId), head]);
}

/** Members in the order browsers write them; the server hashes these exact bytes. */
function clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): string {
  return b64url(Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false })));
}

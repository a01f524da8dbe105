/**
 * Second-factor secrets at rest (docs/design.md#second-factors): AES-256-GCM under a key derived with HKDF-SHA256
 * from each Fernet key of `--secret` and a fixed label. The first key seals; every key of the list opens, so a
 * secret sealed before a key rotation still opens while its key stays listed. A database dump alone reveals no
 * TOTP secret.
 */
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { Keyring } from '../protocol/index.js';

export interface SecretBox {
  /** Seals `plain` with a fresh 12-byte `iv`: base64url of iv ‖ ciphertext ‖ tag. */
  seal(plain: string, iv: Buffer): string;
  /** The sealed text, or null when no key of the list opens it (tampered, or its key is gone). */
  open(sealed: string): string | null;
}

const LABEL = 'authsvc second-factor secrets v1';
const IV = 12;
const TAG = 16;

export function secretBox(keyring: Keyring): SecretBox {
  const keys = keyring.keys.map((key) =>
    Buffer.from(hkdfSync('sha256', Buffer.concat([key.signing, key.encryption]), Buffer.alloc(0), LABEL, 32)),
  );
  const sealing = keys[0];
  if (sealing === undefined) throw new Error('secretBox: the keyring is empty');
  return {
    seal(plain, iv) {
      if (iv.length !== IV) throw new RangeError(`secretBox: the iv must be ${IV} bytes`);
      const cipher = createCipheriv('aes-256-gcm', sealing, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(sealed) {
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length < IV + TAG) return null;
      const iv = bytes.subarray(0, IV);
      const body = bytes.subarray(IV, bytes.length - TAG);
      const tag = bytes.subarray(bytes.length - TAG);
      for (const key of keys) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', key, iv);
          decipher.setAuthTag(tag);
          return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
        } catch {
          // Not this key's: try the next.
        }
      }
      return null;
    },
  };
}

// Authenticated encryption (AES-256-GCM) of small records under a key derived from the server
// secret: for stored responses that hold a secret, such as a new API key kept for replay.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'perch', purpose, 32));
}

/** base64url(iv ‖ tag ‖ ciphertext) */
export function seal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plaintext, or null when the box was not sealed with this key or was altered. */
export function open(sealed: string, key: Buffer): string | null {
  try {
    const bytes = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for webhook signing secrets: AES-256-GCM, a fresh 12-byte nonce per encryption, the
 * key derived with HKDF-SHA256 from a master secret string. A box reads `<keyId>.<base64url(nonce|tag|ct)>`;
 * the key id is a fingerprint of the derived key, so a box names the key that opens it and the master can
 * rotate: encrypt with `current`, keep the old master in `previous` until every box is re-encrypted.
 *
 * An optional `context` (the webhook id) is bound as associated data, so a ciphertext copied onto another
 * row does not decrypt there.
 */

export interface SecretBox {
  encrypt(plain: string, context?: string): string;
  decrypt(box: string, context?: string): string;
}

export interface SecretBoxKeys {
  current: string;
  previous?: readonly string[];
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
// Fixed salt and a purpose label: the same master (e.g. SESSION_SECRET) yields unrelated keys per purpose.
const HKDF_SALT = 'linkhop/secret-box';
const HKDF_INFO = 'linkhop webhook signing secrets v1';
const MIN_MASTER_LENGTH = 16;

interface DerivedKey {
  id: string;
  key: Buffer;
}

function derive(master: string): DerivedKey {
  if (master.length < MIN_MASTER_LENGTH) {
    throw new Error(`The secret-box master secret must be at least ${MIN_MASTER_LENGTH} characters`);
  }
  const key = Buffer.from(hkdfSync('sha256', master, HKDF_SALT, HKDF_INFO, 32));
  // The id reveals nothing useful about the key: a truncated hash under a distinct label.
  const id = `k${createHash('sha256').update('linkhop key id\0').update(key).digest('hex').slice(0, 8)}`;
  return { id, key };
}

export function createSecretBox(keys: SecretBoxKeys): SecretBox {
  const current = derive(keys.current);
  const byId = new Map<string, Buffer>([[current.id, current.key]]);
  for (const master of keys.previous ?? []) {
    const old = derive(master);
    if (!byId.has(old.id)) byId.set(old.id, old.key);
  }

  return {
    encrypt(plain, context = '') {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const sealed = Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]);
      return `${current.id}.${sealed.toString('base64url')}`;
    },

    decrypt(box, context = '') {
      const dot = box.indexOf('.');
      const key = dot > 0 ? byId.get(box.slice(0, dot)) : undefined;
      if (!key) throw new Error('The secret box was sealed with an unknown key');
      const sealed = Buffer.from(box.slice(dot + 1), 'base64url');
      if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new Error('The secret box is malformed');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(sealed.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      // final() throws when the tag does not match: tampered box, wrong key or wrong context.
      return Buffer.concat([
        decipher.update(sealed.subarray(NONCE_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

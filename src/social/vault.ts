import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The token vault: provider access tokens encrypted at rest with AES-256-GCM under TOKEN_VAULT_KEY
 * (32 bytes, base64). A fresh 12-byte nonce each time; a sealed value reads `<keyId>.<base64url(nonce|tag|ct)>`
 * so it names the key that opens it, and keys can rotate: seal with `current`, keep old keys in `previous`
 * until the refresh sweep has re-sealed every row. The account id is bound as associated data, so a
 * ciphertext copied onto another row does not open there. Tokens never leave this module in a response
 * or a log line: callers get them only to put them in a provider request.
 */

export interface TokenVault {
  seal(token: string, accountId: string): string;
  open(sealed: string, accountId: string): string;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

function parseKey(base64: string): { id: string; key: Buffer } {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== 32) throw new Error('TOKEN_VAULT_KEY must be 32 bytes, base64-encoded');
  // A fingerprint under a distinct label: it names the key without revealing anything usable.
  const id = `v${createHash('sha256').update('linkhop token vault key id\0').update(key).digest('hex').slice(0, 8)}`;
  return { id, key };
}

/** True when the value decodes to a 32-byte key; the service reports `appConfigured: false` otherwise. */
export function isVaultKey(value: string | undefined): boolean {
  if (!value) return false;
  try {
    parseKey(value);
    return true;
  } catch {
    return false;
  }
}

export function createTokenVault(keys: { current: string; previous?: readonly string[] }): TokenVault {
  const current = parseKey(keys.current);
  const byId = new Map<string, Buffer>([[current.id, current.key]]);
  for (const old of keys.previous ?? []) {
    const parsed = parseKey(old);
    if (!byId.has(parsed.id)) byId.set(parsed.id, parsed.key);
  }
  return {
    seal(token, accountId) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(accountId, 'utf8'));
      const ct = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return `${current.id}.${Buffer.concat([nonce, cipher.getAuthTag(), ct]).toString('base64url')}`;
    },
    open(sealed, accountId) {
      const dot = sealed.indexOf('.');
      const key = dot > 0 ? byId.get(sealed.slice(0, dot)) : undefined;
      if (!key) throw new Error('The token was sealed with an unknown key (or was revoked)');
      const raw = Buffer.from(sealed.slice(dot + 1), 'base64url');
      if (raw.length < NONCE_BYTES + TAG_BYTES) throw new Error('The sealed token is malformed');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(accountId, 'utf8'));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

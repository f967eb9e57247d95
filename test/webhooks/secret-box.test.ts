import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/webhooks/secret-box.js';

const MASTER = 'secret-box-master-0123456789abcdef';
const OLD_MASTER = 'the-previous-master-secret-987654';

describe('secret box', () => {
  it('round-trips, with a fresh nonce every time and no plain text in the box', () => {
    const box = createSecretBox({ current: MASTER });
    const plain = 'whsec_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
    const a = box.encrypt(plain, 'row-1');
    const b = box.encrypt(plain, 'row-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain(plain);
    expect(a).toMatch(/^k[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
    expect(box.decrypt(a, 'row-1')).toBe(plain);
    expect(box.decrypt(b, 'row-1')).toBe(plain);
  });

  it('refuses a tampered box, another context and another master', () => {
    const box = createSecretBox({ current: MASTER });
    const sealed = box.encrypt('hello', 'row-1');
    const [id, body = ''] = sealed.split('.');
    const bytes = Buffer.from(body, 'base64url');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    expect(() => box.decrypt(`${id}.${bytes.toString('base64url')}`, 'row-1')).toThrow();
    expect(() => box.decrypt(sealed, 'row-2')).toThrow();
    expect(() => box.decrypt(`${id}.AAAA`, 'row-1')).toThrow(/malformed/);
    expect(() => createSecretBox({ current: OLD_MASTER }).decrypt(sealed, 'row-1')).toThrow(/unknown key/);
  });

  it('rotates: boxes of a previous master still open, new ones use the current key', () => {
    const old = createSecretBox({ current: OLD_MASTER });
    const sealedOld = old.encrypt('kept', 'x');
    const rotated = createSecretBox({ current: MASTER, previous: [OLD_MASTER] });
    expect(rotated.decrypt(sealedOld, 'x')).toBe('kept');
    const sealedNew = rotated.encrypt('kept', 'x');
    expect(sealedNew.split('.')[0]).not.toBe(sealedOld.split('.')[0]);
    expect(createSecretBox({ current: MASTER }).decrypt(sealedNew, 'x')).toBe('kept');
  });

  it('refuses a short master secret', () => {
    expect(() => createSecretBox({ current: 'short' })).toThrow(/at least 16/);
  });
});

import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { readEvents, signatureValid } from '../../src/social/intake.js';
import { rawId } from '../../src/social/provider.js';
import { cleanTrigger, matchesText } from '../../src/social/trigger.js';
import { createTokenVault, isVaultKey } from '../../src/social/vault.js';

describe('token vault', () => {
  const key = randomBytes(32).toString('base64');
  it('seals with a fresh nonce and a key id, opens only on its own row', () => {
    const vault = createTokenVault({ current: key });
    const a = vault.seal('IGtoken', 'acc-1');
    const b = vault.seal('IGtoken', 'acc-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('IGtoken');
    expect(a.split('.')[0]).toMatch(/^v[0-9a-f]{8}$/);
    expect(vault.open(a, 'acc-1')).toBe('IGtoken');
    expect(() => vault.open(a, 'acc-2')).toThrow();
    expect(() => vault.open('', 'acc-1')).toThrow();
  });
  it('rotates: a new current key still opens boxes of a previous key', () => {
    const old = createTokenVault({ current: key });
    const sealed = old.seal('tok', 'x');
    const rotated = createTokenVault({ current: randomBytes(32).toString('base64'), previous: [key] });
    expect(rotated.open(sealed, 'x')).toBe('tok');
    expect(rotated.seal('tok', 'x').split('.')[0]).not.toBe(sealed.split('.')[0]);
  });
  it('accepts only 32-byte base64 keys', () => {
    expect(isVaultKey(key)).toBe(true);
    expect(isVaultKey(randomBytes(16).toString('base64'))).toBe(false);
    expect(isVaultKey(undefined)).toBe(false);
  });
});

describe('trigger', () => {
  it('cleans keywords and drops mediaId on message triggers', () => {
    expect(
      cleanTrigger({
        type: 'message',
        match: { mode: 'exact', keywords: [' Hi ', 'hi', ''] },
        mediaId: '123',
      }),
    ).toEqual({
      type: 'message',
      match: { mode: 'exact', keywords: ['Hi'] },
      mediaId: null,
    });
    expect(cleanTrigger({ type: 'comment' })).toEqual({
      type: 'comment',
      match: { mode: 'any', keywords: [] },
      mediaId: null,
    });
  });
  it.each<[unknown, string]>([
    [{}, 'missing type'],
    [{ type: 'comment', extra: 1 }, 'unknown field'],
    [{ type: 'comment', mediaId: 12345 }, 'numeric media id'],
    [null, 'null'],
  ])('refuses %j (%s) with bad_trigger', (input) => {
    expect(() => cleanTrigger(input)).toThrow(AppError);
    try {
      cleanTrigger(input);
    } catch (error) {
      expect((error as AppError).code).toBe('bad_trigger');
    }
  });
  it('matches whole words case-insensitively, or the exact trimmed text', () => {
    const any = cleanTrigger({ type: 'comment', match: { mode: 'any', keywords: ['link', 'pdf guide'] } });
    expect(matchesText(any, 'LINK please')).toBe(true);
    expect(matchesText(any, 'send the PDF guide!')).toBe(true);
    expect(matchesText(any, 'linked in')).toBe(false);
    expect(matchesText(any, 'unlink')).toBe(false);
    const exact = cleanTrigger({ type: 'comment', match: { mode: 'exact', keywords: ['Yes'] } });
    expect(matchesText(exact, '  yes ')).toBe(true);
    expect(matchesText(exact, 'yes please')).toBe(false);
    expect(matchesText(cleanTrigger({ type: 'comment' }), 'anything')).toBe(true);
  });
});

describe('intake helpers', () => {
  it('checks sha256 signatures over raw bytes', () => {
    const raw = Buffer.from('{"a":1}');
    const good = `sha256=${createHmac('sha256', 's3cret').update(raw).digest('hex')}`;
    expect(signatureValid('s3cret', raw, good)).toBe(true);
    expect(signatureValid('s3cret', Buffer.from('{"a": 1}'), good)).toBe(false);
    expect(signatureValid(undefined, raw, good)).toBe(false);
    expect(signatureValid('s3cret', raw, good.toUpperCase())).toBe(false);
  });
  it('reads comments from changes[] or a flat entry, skips our own comments and echoes', () => {
    const events = readEvents({
      object: 'instagram',
      entry: [
        {
          id: '1784',
          changes: [
            { field: 'comments', value: { id: 'c1', text: 'hi', from: { id: '9' }, media: { id: 'm' } } },
          ],
        },
        { id: '1784', field: 'comments', value: { comment_id: 'c2', text: 'yo', from: { id: '8' } } },
        {
          id: '1784',
          changes: [{ field: 'comments', value: { id: 'c3', text: 'x', from: { id: '1784' } } }],
        },
        {
          id: '1784',
          messaging: [{ sender: { id: '1784' }, message: { mid: 'm1', text: 'echo', is_echo: true } }],
        },
        { id: '1784', messaging: [{ sender: { id: '7' }, message: { mid: 'm2', text: 'dm' } }] },
      ],
    });
    expect(events.map((e) => `${e.kind}:${e.sourceId}`)).toEqual(['comment:c1', 'comment:c2', 'message:m2']);
  });
  it('keeps big provider ids exact by reading them from the raw text', () => {
    expect(rawId('{"user_id":17841400000000001,"x":1}', 'user_id')).toBe('17841400000000001');
    expect(rawId('{"user_id":"17841400000000001"}', 'user_id')).toBe('17841400000000001');
  });
});

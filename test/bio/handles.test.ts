import { describe, expect, it } from 'vitest';
import { checkHandle, HANDLE_PATTERN, RESERVED_HANDLES } from '../../src/bio/handles.js';

describe('bio handles', () => {
  it.each(['ada', 'ada.lovelace', 'a_b', 'abc123', '_ada_', 'x'.repeat(30), 'a.b.c'])(
    'accepts %s',
    (handle) => {
      expect(checkHandle(handle)).toEqual({ ok: true, handle });
    },
  );

  it('lowercases and trims before checking', () => {
    expect(checkHandle('  Ada.Lovelace ')).toEqual({ ok: true, handle: 'ada.lovelace' });
  });

  it.each([
    ['too short', 'ab'],
    ['too long', 'x'.repeat(31)],
    ['leading dot', '.ada'],
    ['trailing dot', 'ada.'],
    ['two dots', 'ada..l'],
    ['hyphen', 'ada-l'],
    ['space', 'ada l'],
    ['at sign', '@ada'],
    ['slash', 'ada/x'],
    ['non-ascii', 'adà'],
    ['empty', ''],
  ])('refuses %s', (_why, handle) => {
    expect(checkHandle(handle).ok).toBe(false);
  });

  it('reserves at least 50 words, every one of them refused in any casing', () => {
    expect(RESERVED_HANDLES.size).toBeGreaterThanOrEqual(50);
    for (const word of ['admin', 'api', 'www', 'support', 'help', 'login', 'bio', 'media_kit', 'linkhop']) {
      expect(RESERVED_HANDLES.has(word)).toBe(true);
      const result = checkHandle(word.toUpperCase());
      expect(result.ok).toBe(false);
      if (!result.ok && HANDLE_PATTERN.test(word)) expect(result.reason).toContain('reserved');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { findControlCharacter, hasForbiddenControl, isWellFormedId } from '../../src/http/edge-text.js';

/** The rule itself: which strings are refused, where, and which ids are well formed. */
describe('the edge text rule', () => {
  it('finds the first control character at any depth and names its path', () => {
    expect(findControlCharacter({ a: 'ok', b: [{ c: 'x' }, { c: 'y\u0000' }] })).toEqual(['b', 1, 'c']);
    expect(findControlCharacter(['a', 'b\u001f'])).toEqual([1]);
    expect(findControlCharacter('\u007f')).toEqual([]);
    expect(findControlCharacter({ a: 1, b: true, c: null, d: 'plain é' })).toBeUndefined();
  });

  it('prose fields may carry tab, LF and CR; every other field may not; none may carry NUL', () => {
    expect(findControlCharacter({ description: 'one\ntwo\tthree\r\n' })).toBeUndefined();
    expect(findControlCharacter({ blocks: [{ text: 'a\nb' }] })).toBeUndefined();
    expect(findControlCharacter({ name: 'one\ntwo' })).toEqual(['name']);
    expect(findControlCharacter({ description: 'a\u0000' })).toEqual(['description']);
    expect(findControlCharacter({ note: 'a\u0008' })).toEqual(['note']);
  });

  it('a key holding a control character is refused too', () => {
    expect(findControlCharacter({ 'a\u0000': 'x' })).toEqual(['a\u0000']);
  });

  it('hasForbiddenControl: the prose exception is exactly tab, LF and CR', () => {
    for (let code = 0; code < 0x20; code++) {
      const char = String.fromCharCode(code);
      expect(hasForbiddenControl(char)).toBe(true);
      expect(hasForbiddenControl(char, true)).toBe(!['\t', '\n', '\r'].includes(char));
    }
    expect(hasForbiddenControl('\u007f', true)).toBe(true);
  });

  it('ids are well formed when shaped as crypto.randomUUID makes them', () => {
    expect(isWellFormedId(crypto.randomUUID())).toBe(true);
    expect(isWellFormedId('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(true);
    for (const junk of ['', 'abc', '1', '\u0000', `${crypto.randomUUID()}\u0000`, `${crypto.randomUUID()}x`])
      expect(isWellFormedId(junk)).toBe(false);
  });
});

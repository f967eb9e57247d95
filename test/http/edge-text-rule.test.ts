import { describe, expect, it } from 'vitest';
import {
  findControlCharacter,
  hasForbiddenControl,
  isWellFormedId,
  MAX_NESTING,
  nestsDeeperThan,
} from '../../src/http/edge-text.js';

/** `levels` arrays one inside the other around `inner`, as JSON.parse would build them. */
function nestedArrays(levels: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** `levels` objects `{a: {a: ...}}` around `inner`. */
function nestedObjects(levels: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

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

  it('the order of the first find is the document order, keys before their values', () => {
    expect(findControlCharacter({ a: ['ok', 'x\u0001'], b: 'y\u0001' })).toEqual(['a', 1]);
    expect(findControlCharacter({ 'k\u0001': 'v\u0001', z: '\u0000' })).toEqual(['k\u0001']);
    expect(findControlCharacter([{ text: 'a\nb', name: 'c\nd' }])).toEqual([0, 'name']);
    expect(findControlCharacter({ name: 'x' }, ['body'])).toBeUndefined();
    expect(findControlCharacter({ name: '\u0000' }, ['body'])).toEqual(['body', 'name']);
  });

  it('walks 5,000 and 100,000 levels without recursion (it used to overflow the stack: a 500)', () => {
    for (const levels of [5_000, 100_000]) {
      expect(findControlCharacter(nestedArrays(levels, 'plain'))).toBeUndefined();
      const path = findControlCharacter(nestedObjects(levels, 'a\u0000'));
      expect(path).toHaveLength(levels);
      expect(path?.every((key) => key === 'a')).toBe(true);
      expect(findControlCharacter(nestedArrays(levels, 'a\u0000'))).toEqual(Array(levels).fill(0));
    }
  });

  it('walks a wide body (500,000 items) without spreading it onto the stack', () => {
    const wide = Array.from({ length: 500_000 }, () => 'x');
    expect(findControlCharacter(wide)).toBeUndefined();
    wide[499_999] = '\u0000';
    expect(findControlCharacter({ wide })).toEqual(['wide', 499_999]);
    expect(nestsDeeperThan(wide)).toBe(false);
  });

  it('nestsDeeperThan: 64 levels pass, 65 do not, whatever the shape; scalars nest 0 deep', () => {
    expect(MAX_NESTING).toBe(64);
    for (const build of [nestedArrays, nestedObjects]) {
      expect(nestsDeeperThan(build(64, 1))).toBe(false);
      expect(nestsDeeperThan(build(64, []))).toBe(true);
      expect(nestsDeeperThan(build(65, 'x'))).toBe(true);
      expect(nestsDeeperThan(build(100_000, null))).toBe(true);
    }
    // The deep branch may be the last of many shallow ones.
    expect(nestsDeeperThan({ a: 1, b: [1, 2, { c: 'd' }], z: nestedArrays(65, 0) })).toBe(true);
    expect(nestsDeeperThan(nestedArrays(3, 'x'), 2)).toBe(true);
    for (const scalar of ['text', 1, null, undefined, true]) expect(nestsDeeperThan(scalar, 0)).toBe(false);
  });
});

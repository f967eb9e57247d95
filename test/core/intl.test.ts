import { expect, it } from 'vitest';
import { formatCount, regionName } from '../../src/core/intl.js';

it('names regions and writes counts in English, the formatters made once on first use', () => {
  expect(regionName('FR')).toBe('France');
  expect(regionName('JP')).toBe('Japan');
  // ICU gives an unknown code back as it is: the link schema's country check relies on it.
  expect(regionName('QQ')).toBe('QQ');
  expect(formatCount(1234567)).toBe('1,234,567');
  expect(formatCount(0)).toBe('0');
});

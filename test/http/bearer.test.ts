import { describe, expect, it } from 'vitest';
import { createBearerCheck } from '../../src/http/bearer.js';

describe('bearer token check', () => {
  const check = createBearerCheck('s3cret-token');

  it('accepts the exact token, with the scheme in any case', () => {
    expect(check('Bearer s3cret-token')).toBe(true);
    expect(check('bearer s3cret-token')).toBe(true);
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Bearer ',
    's3cret-token',
    'Bearer s3cret-toke',
    'Bearer s3cret-token ',
    'Bearer S3CRET-TOKEN',
    'Basic s3cret-token',
  ])('refuses %j', (header) => {
    expect(check(header)).toBe(false);
  });

  it('with no token configured nothing matches', () => {
    const none = createBearerCheck(undefined);
    expect(none('Bearer ')).toBe(false);
    expect(none('Bearer undefined')).toBe(false);
    expect(createBearerCheck('')('Bearer ')).toBe(false);
  });
});

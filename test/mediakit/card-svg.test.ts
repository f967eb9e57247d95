import { describe, expect, it } from 'vitest';
import { type CardInput, clip, renderCardSvg } from '../../src/mediakit/card-svg.js';

const EVIL = `</text><script>alert(1)</script>&amp;"'<`;

const card = (over: Partial<CardInput> = {}): CardInput => ({
  handle: 'ada',
  title: 'Ada Lovelace',
  theme: null,
  window: 90,
  appOpen: { rate: 0.7312, opened: 7312, browser: 2400, broken: 288 },
  ...over,
});

/**
 * A small XML well-formedness check: tags balance, attribute values are quoted, every `&` starts an
 * entity, no stray `<` in text. Enough to catch what string-built SVG gets wrong.
 */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const token = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let seen = 0;
  for (let match = token.exec(xml); match !== null; match = token.exec(xml)) {
    seen = token.lastIndex;
    const [, closing, name, , selfClosing, text] = match;
    if (text !== undefined) {
      expect(text).not.toMatch(/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i);
      continue;
    }
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) stack.push(name as string);
  }
  expect(seen, `unparsed from: ${xml.slice(seen, seen + 60)}`).toBe(xml.length);
  expect(stack).toEqual([]);
  for (const value of xml.match(/="[^"]*"/g) ?? []) {
    expect(value).not.toMatch(/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i);
  }
}

describe('media kit card.svg', () => {
  it('is a well-formed 1200x630 SVG with the rate, the split and the handle', () => {
    const svg = renderCardSvg(card());
    assertWellFormed(svg);
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="1200" height="630" viewBox="0 0 1200 630"/,
    );
    expect(svg).toContain('>73%<');
    expect(svg).toContain('7,312');
    expect(svg).toContain('@ada');
    expect(svg).toContain('Last 90 days');
  });

  it('escapes every text and attribute, including a hostile title and handle', () => {
    const svg = renderCardSvg(card({ title: EVIL, handle: `x"y<z` }));
    assertWellFormed(svg);
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;/text&gt;');
  });

  it('uses the theme accent only when it is a valid colour', () => {
    expect(renderCardSvg(card({ theme: { bg: '#000', ink: '#fff', accent: '#ff0066' } }))).toContain(
      '#ff0066',
    );
    const svg = renderCardSvg(card({ theme: { bg: '#000', ink: '#fff', accent: '"/><script>x</script>' } }));
    assertWellFormed(svg);
    expect(svg).not.toContain('<script');
  });

  it('draws the edges: 0% and 100%', () => {
    for (const appOpen of [
      { rate: 0, opened: 0, browser: 10, broken: 0 },
      { rate: 1, opened: 10, browser: 0, broken: 0 },
    ]) {
      const svg = renderCardSvg(card({ appOpen }));
      assertWellFormed(svg);
      expect(svg).toContain(`>${appOpen.rate * 100}%<`);
    }
  });

  it('clips long titles by code point', () => {
    expect(clip('😀'.repeat(50), 10)).toBe(`${'😀'.repeat(9)}…`);
    expect(clip('short', 10)).toBe('short');
  });
});

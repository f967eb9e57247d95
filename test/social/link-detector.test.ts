import { describe, expect, it } from 'vitest';
import { findRawLink } from '../../src/social/link-detector.js';

/** Rule 2 of 4.5: full URLs, bare domains and shortener addresses are refused; ordinary prose passes. */

const REFUSED: [string, string][] = [
  ['Get it at https://example.com/page', 'https://example.com/page'],
  ['http://example.org', 'http://example.org'],
  ['HTTPS://EXAMPLE.COM/A?b=c', 'HTTPS://EXAMPLE.COM/A?b=c'],
  ['link: https://sho.rt/abc.', 'https://sho.rt/abc'],
  ['(https://example.com)', 'https://example.com'],
  ['ftp://files.example.net/x', 'ftp://files.example.net/x'],
  ['visit www.example.com today', 'www.example.com'],
  ['WWW.Example.Org/path', 'WWW.Example.Org/path'],
  ['www.shop', 'www.shop'],
  ['go to example.com', 'example.com'],
  ['example.com/deal', 'example.com/deal'],
  ['my store: shop.example.io!', 'shop.example.io'],
  ['Example.COM', 'Example.COM'],
  ['sub.domain.example.co.uk/x', 'sub.domain.example.co.uk/x'],
  ['try mysite.net', 'mysite.net'],
  ['grab it on gumroad.com/l/x', 'gumroad.com/l/x'],
  ['bit.ly/3abc', 'bit.ly/3abc'],
  ['bit.ly', 'bit.ly'],
  ['t.co/xyz', 't.co/xyz'],
  ['goo.gl/maps/1', 'goo.gl/maps/1'],
  ['tinyurl.com/y3', 'tinyurl.com/y3'],
  ['ow.ly/abc', 'ow.ly/abc'],
  ['is.gd/abc', 'is.gd/abc'],
  ['rb.gy/abc', 'rb.gy/abc'],
  ['cutt.ly/abc', 'cutt.ly/abc'],
  ['linktr.ee/creator', 'linktr.ee/creator'],
  ['shorturl.at/abc', 'shorturl.at/abc'],
  ['lnkd.in/abc', 'lnkd.in/abc'],
  ['youtu.be/dQw4w9WgXcQ', 'youtu.be/dQw4w9WgXcQ'],
  ['amzn.to/3xyz', 'amzn.to/3xyz'],
  ['DM me on t.me/creator', 't.me/creator'],
  ['wa.me/123456', 'wa.me/123456'],
  ['tiny.cc/abc', 'tiny.cc/abc'],
  ['buff.ly/abc', 'buff.ly/abc'],
  ['check my-site.dev', 'my-site.dev'],
  ['new drop at brand.shop', 'brand.shop'],
  ['stream on twitch.tv/me', 'twitch.tv/me'],
  ['localhost.io:8080/x', 'localhost.io:8080/x'],
  ['code at github.io/page', 'github.io/page'],
  ['newsletter: creator.substack.com', 'creator.substack.com'],
  ['last line\nexample.app', 'example.app'],
  ['"example.xyz"', 'example.xyz'],
  ['see beacons.ai/me', 'beacons.ai/me'],
];

const ALLOWED = [
  'Thanks for commenting! Here is the link you asked for.',
  'Here you go :)',
  'Hello there. How are you?',
  'Thank you so much!!! Enjoy.',
  'e.g. this one',
  'i.e. the best one',
  'Mr. Smith says hi',
  'Version 2.0 is out',
  'It costs 3.99 today',
  'U.S.A. shipping only',
  'Node.js tips inside',
  'Ends at 5 p.m. sharp',
  'Wait... really?',
  'Great question.Enjoy the guide',
  'Dr. Who fans welcome',
  'No. Way.',
  'Link below 👇',
  'Tap the link to listen',
  'Here is your discount code: SAVE20',
  '100% free, no strings attached',
  'Check your inbox soon!',
  'Thanks @alice for the comment',
  'Email me at hello@example.com',
  'Chapter 3.2 covers this',
  'Open it on your phone',
  'The guide is ready for you',
  'Sent with love from our team',
  'Use it before Friday',
  'A.B. testing is fun',
  'We’re live at 8pm!',
  'Quick tip: save this post',
  'Hi! Here’s the recipe you wanted',
  'Stay tuned.More soon',
  'Rated 4.5/5 by fans',
  'Coordinates 48.85, 2.35',
  'Price: $19.99/month',
  'Hello, world',
  'Follow for more',
  'Done — enjoy the playlist',
  'See you at the show, friend',
  'Ciao! Grazie mille',
  'Merci beaucoup. À bientôt',
  '¡Gracias! Aquí está',
  'ありがとうございます。',
];

describe('findRawLink', () => {
  it('has at least 40 cases each way', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(40);
    expect(ALLOWED.length).toBeGreaterThanOrEqual(40);
  });
  it.each(REFUSED)('refuses %j (offending %j)', (text, offending) => {
    expect(findRawLink(text)).toBe(offending);
  });
  it.each(ALLOWED)('lets %j pass', (text) => {
    expect(findRawLink(text)).toBeNull();
  });
});

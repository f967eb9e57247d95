import { describe, expect, it } from 'vitest';
import { classifyVisitor } from '../../src/core/visitor.js';
import { BROWSER_FIXTURES, IN_APP_FIXTURES } from '../helpers/in-app-user-agents.js';
import { UA_CORPUS } from './ua-corpus.js';

describe('in-app browser detection against cited public fixtures', () => {
  it('covers at least 20 in-app browsers, with iOS and Android where the app has its own webview on both', () => {
    const apps = new Set(IN_APP_FIXTURES.map((f) => f.inApp));
    expect(apps.size).toBeGreaterThanOrEqual(20);
    const both = [...apps].filter((app) =>
      IN_APP_FIXTURES.filter((f) => f.inApp === app).some((f) => f.os === 'ios'),
    );
    const bothOs = both.filter((app) => IN_APP_FIXTURES.some((f) => f.inApp === app && f.os === 'android'));
    expect(bothOs.length).toBeGreaterThanOrEqual(15);
    for (const fixture of IN_APP_FIXTURES) expect(fixture.source).toMatch(/^https:\/\/github\.com\//);
  });

  it.each(IN_APP_FIXTURES.map((f) => [`${f.inApp} ${f.os}: ${f.ua.slice(0, 60)}…`, f] as const))(
    '%s',
    (_name, f) => {
      expect(classifyVisitor(f.ua)).toMatchObject({ os: f.os, inApp: f.inApp, mobile: true, bot: false });
    },
  );

  it.each(BROWSER_FIXTURES.map((f) => [f.name, f] as const))(
    '%s is a browser, not an in-app browser',
    (_name, f) => {
      expect(classifyVisitor(f.ua)).toMatchObject({ os: f.os, inApp: null, bot: false });
    },
  );

  it('never takes a bot or a link-preview fetcher for an in-app browser', () => {
    const bots = UA_CORPUS.filter((c) => c.bot);
    expect(bots.length).toBeGreaterThan(30);
    for (const bot of bots)
      expect(classifyVisitor(bot.ua)).toMatchObject({ bot: true, inApp: null, mobile: false });
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';

describe('configuration', () => {
  it('applies the defaults of decisions.md', () => {
    const config = parseConfig({}, 'hosted');
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.databaseUrl).toBe('sqlite:./data/linkhop.db');
    expect(config.dataDir).toBe('./data');
    expect(config.analytics).toBe(true);
    expect(config.geoHeader).toBe('cf-ipcountry');
    expect(config.logLevel).toBe('info');
    expect(config.flagsOff.size).toBe(0);
  });

  it('gives the engine a default port of its own, so it runs beside the hosted service', () => {
    const engine = parseConfig({}, 'engine');
    expect(engine.port).toBe(3001);
    expect(engine.baseUrl).toBe('http://localhost:3001');
    expect(engine.databaseUrl).toBe('sqlite:./data/engine.db');
    expect(parseConfig({ PORT: '8080' }, 'engine').port).toBe(8080);
    expect(parseConfig({ PORT: '' }, 'hosted').port).toBe(3000);
  });

  it('strips a trailing slash from BASE_URL and lower-cases GEO_HEADER', () => {
    const config = parseConfig({ BASE_URL: 'https://go.example.com/', GEO_HEADER: 'X-Country' }, 'hosted');
    expect(config.baseUrl).toBe('https://go.example.com');
    expect(config.geoHeader).toBe('x-country');
  });

  it('DNS_RESOLVER is an ip:port for domain verification; unset uses the system resolver', () => {
    expect(parseConfig({}, 'hosted').dnsResolver).toBeUndefined();
    expect(parseConfig({ DNS_RESOLVER: '127.0.0.1:5353' }, 'hosted').dnsResolver).toBe('127.0.0.1:5353');
    expect(parseConfig({ DNS_RESOLVER: '[::1]:53' }, 'hosted').dnsResolver).toBe('[::1]:53');
  });

  it('SQLITE_CACHE_MB is 16 by default, else a whole number of megabytes from 2 to 1024', () => {
    expect(parseConfig({}, 'hosted').sqliteCacheMb).toBe(16);
    expect(parseConfig({ SQLITE_CACHE_MB: '64' }, 'engine').sqliteCacheMb).toBe(64);
    for (const bad of ['0', '1', '2000', '8.5', 'lots']) {
      expect(() => parseConfig({ SQLITE_CACHE_MB: bad }, 'hosted')).toThrow(
        /SQLITE_CACHE_MB is a whole number of megabytes from 2 to 1024/,
      );
    }
  });

  it('CLICK_RETENTION_DAYS keeps every click by default, else is a whole number of days', () => {
    expect(parseConfig({}, 'hosted').clickRetentionDays).toBeNull();
    expect(parseConfig({ CLICK_RETENTION_DAYS: '400' }, 'hosted').clickRetentionDays).toBe(400);
    for (const bad of ['0', '-3', '1.5', 'forever'])
      expect(() => parseConfig({ CLICK_RETENTION_DAYS: bad }, 'hosted')).toThrow(/CLICK_RETENTION_DAYS/);
  });

  it('ANALYTICS_URL is unset by default (analytics in the main database), else a clickhouse:// URL', () => {
    expect(parseConfig({}, 'hosted').analyticsUrl).toBeNull();
    const url = 'clickhouse://writer:secret@ch.internal:8123/analytics';
    expect(parseConfig({ ANALYTICS_URL: url }, 'hosted').analyticsUrl).toBe(url);
    for (const bad of ['http://ch:8123/db', 'clickhouse://ch/bad-name', 'clickhouse://ch/db?x=1', 'nonsense'])
      expect(() => parseConfig({ ANALYTICS_URL: bad }, 'hosted')).toThrow(/ANALYTICS_URL/);
    // The message never shows the credentials.
    expect(() => parseConfig({ ANALYTICS_URL: 'clickhouse://u:hunter2@ch/1x' }, 'hosted')).toThrow(
      /^(?![\s\S]*hunter2)/,
    );
  });

  it('parses FLAGS_OFF as a comma list', () => {
    const config = parseConfig({ FLAGS_OFF: 'mediaKit, broadcasts' }, 'hosted');
    expect([...config.flagsOff]).toEqual(['mediaKit', 'broadcasts']);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ BASE_URL: 'ftp://x' }, 'BASE_URL'],
    [{ FLAGS_OFF: 'nope' }, 'FLAGS_OFF'],
    [{ ANALYTICS: 'maybe' }, 'ANALYTICS'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DNS_RESOLVER: 'dns.example:53' }, 'DNS_RESOLVER'],
    [{ DNS_RESOLVER: '127.0.0.1' }, 'DNS_RESOLVER'],
  ])('fails fast naming the variable: %j', (env, name) => {
    expect(() => parseConfig(env, 'hosted')).toThrow(ConfigError);
    expect(() => parseConfig(env, 'hosted')).toThrow(name);
  });
});

import { isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError, shownValue } from './config-error.js';
import { parseClickhouseUrl } from './store/clickhouse-url.js';
import { TIERS, type Tier } from './tenancy/plans.js';

export { ConfigError } from './config-error.js';

/**
 * The one place that reads the environment. Every variable of decisions.md is here with its default,
 * parsed once by the composition root and handed down as plain objects.
 */

export type ServerMode = 'hosted' | 'engine';

export const HOSTED_DEFAULT_PORT = 3000;
export const ENGINE_DEFAULT_PORT = 3001;
/**
 * The page cache ceiling of each SQLite connection a server opens. Measured (docs/performance.md, "Memory"):
 * the click writer's cache fills to its ceiling under any sustained load, since every batch dirties fresh
 * pages; 16 MB keeps an instance under load near 200 MB, 64 MB writes clicks spread over 10,000 links about
 * a quarter faster for about 50 MB more.
 */
export const SQLITE_CACHE_MB_DEFAULT = 16;

const flag = z.enum(['linkInBio', 'mediaKit', 'audienceCapture', 'dmAutomations', 'broadcasts']);

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

const envSchema = z.object({
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).optional()),
  HOST: z.preprocess(emptyToUndefined, z.string().default('0.0.0.0')),
  BASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .url({
        protocol: /^https?$/,
        error: 'BASE_URL must be an http(s) origin such as https://go.example.com',
      })
      .optional(),
  ),
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  SESSION_SECRET: optionalString,
  API_TOKEN: optionalString,
  FLAGS_OFF: z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean)
        : [],
    z.array(flag, { error: `FLAGS_OFF is a comma list of ${flag.options.join(', ')}` }),
  ),
  ANALYTICS: z.preprocess(emptyToUndefined, z.enum(['on', 'off']).default('on')),
  ANALYTICS_URL: optionalString,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.preprocess(emptyToUndefined, z.enum(['0', '1']).optional()),
  IMPORT_ALLOW_PRIVATE_SOURCES: z.preprocess(emptyToUndefined, z.enum(['0', '1']).optional()),
  HEALTH_CHECKS: z.preprocess(emptyToUndefined, z.enum(['on', 'off']).default('on')),
  HEALTH_ALLOW_PRIVATE_TARGETS: z.preprocess(emptyToUndefined, z.enum(['0', '1']).optional()),
  SSO_ALLOW_PRIVATE_ISSUERS: z.preprocess(emptyToUndefined, z.enum(['0', '1']).optional()),
  SOCIAL_APP_ID: optionalString,
  SOCIAL_APP_SECRET: optionalString,
  TOKEN_VAULT_KEY: optionalString,
  SOCIAL_VERIFY_TOKEN: optionalString,
  SOCIAL_APP_MODE: z.preprocess(emptyToUndefined, z.enum(['development', 'live']).default('development')),
  SOCIAL_AUTHORIZE_BASE: z.preprocess(emptyToUndefined, z.url().default('https://www.instagram.com')),
  SOCIAL_OAUTH_BASE: z.preprocess(emptyToUndefined, z.url().default('https://api.instagram.com')),
  SOCIAL_API_BASE: z.preprocess(emptyToUndefined, z.url().default('https://graph.instagram.com')),
  CRON_SECRET: optionalString,
  SMTP_URL: optionalString,
  MAIL_FROM: optionalString,
  SIGNUP_TIER: z.preprocess(
    emptyToUndefined,
    z.enum(TIERS, { error: `SIGNUP_TIER is one of ${TIERS.join(', ')}` }).default('sidekick'),
  ),
  PLATFORMS_FILE: optionalString,
  ESCAPE_MATRIX_FILE: optionalString,
  DASHBOARD_DIR: optionalString,
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  GEO_HEADER: z.preprocess(emptyToUndefined, z.string().default('cf-ipcountry')),
  RECEIPT_SIGNING_KEY: optionalString,
  TRUST_PROXY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        const parsed = parseTrustProxy(value);
        if (parsed === null) {
          ctx.addIssue({
            code: 'custom',
            message:
              'TRUST_PROXY is a hop count (e.g. 1) or a comma list of proxy addresses or CIDRs (e.g. 10.0.0.0/8,::1)',
          });
          return z.NEVER;
        }
        return parsed;
      }),
  ),
  SPILL_DIR: optionalString,
  SQLITE_CACHE_MB: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'SQLITE_CACHE_MB is a whole number of megabytes from 2 to 1024' })
      .int('SQLITE_CACHE_MB is a whole number of megabytes from 2 to 1024')
      .min(2, 'SQLITE_CACHE_MB is a whole number of megabytes from 2 to 1024')
      .max(1024, 'SQLITE_CACHE_MB is a whole number of megabytes from 2 to 1024')
      .default(SQLITE_CACHE_MB_DEFAULT),
  ),
  CLICK_RETENTION_DAYS: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({
        error: 'CLICK_RETENTION_DAYS is a whole number of days (at least 1), or unset to keep every click',
      })
      .int('CLICK_RETENTION_DAYS is a whole number of days (at least 1), or unset to keep every click')
      .min(1, 'CLICK_RETENTION_DAYS is a whole number of days (at least 1), or unset to keep every click')
      .optional(),
  ),
  DNS_RESOLVER: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(
        /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):\d{1,5}$/,
        'DNS_RESOLVER is host:port (an IP address)',
      )
      .optional(),
  ),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  mode: ServerMode;
  port: number;
  host: string;
  /** Origin without a trailing slash; shortUrl is built from it, never from the request. */
  baseUrl: string;
  databaseUrl: string;
  /** The folder that holds the SQLite file and generated secrets, when the store is SQLite. */
  dataDir: string;
  redisUrl: string | undefined;
  sessionSecret: string | undefined;
  apiToken: string | undefined;
  flagsOff: ReadonlySet<string>;
  analytics: boolean;
  /**
   * ANALYTICS_URL=clickhouse://user:pass@host:8123/db: clicks and outcomes go to ClickHouse (issue #35);
   * null keeps analytics in the main database. Checked here; compose/analytics.ts opens it.
   */
  analyticsUrl: string | null;
  allowPrivateWebhookTargets: boolean;
  /** IMPORT_ALLOW_PRIVATE_SOURCES=1: imports may reach http: and private addresses (a self-hosted Shlink on the LAN, tests). */
  allowPrivateImportSources: boolean;
  /** HEALTH_CHECKS=off: no destination checks from this instance (destination health, issue #33). */
  healthChecks: boolean;
  /** HEALTH_ALLOW_PRIVATE_TARGETS=1: destination checks may reach http: and private addresses (tests, LANs). */
  allowPrivateHealthTargets: boolean;
  /** SSO_ALLOW_PRIVATE_ISSUERS=1: an SSO issuer may be http: on a private address (tests, LANs). */
  allowPrivateSsoIssuers: boolean;
  social: {
    appId: string | undefined;
    appSecret: string | undefined;
    vaultKey: string | undefined;
    verifyToken: string | undefined;
    appMode: 'development' | 'live';
    authorizeBase: string;
    oauthBase: string;
    apiBase: string;
  };
  cronSecret: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string | undefined;
  /** The plan a confirmed sign-up's organization starts on (a self-hoster sets legend). */
  signupTier: Tier;
  platformsFile: string | undefined;
  /** JSON rows of the escape matrix that replace or add to the built-in cells (both servers). */
  escapeMatrixFile: string | undefined;
  /** The built web dashboard (index.html and assets/); unset: dist/web beside the server. */
  dashboardDir: string | undefined;
  logLevel: Env['LOG_LEVEL'];
  geoHeader: string;
  receiptSigningKey: string | undefined;
  /**
   * Whose X-Forwarded-For to believe (Fastify's trustProxy): false (the TCP peer is the client), a hop
   * count, or the proxies' addresses and CIDRs.
   */
  trustProxy: TrustProxy;
  /** Where clicks and tap outcomes wait on local disk while the database is away (one per instance). */
  spillDir: string;
  /** SQLite only: each connection's page cache ceiling in MB (the serving one and the click writer's). */
  sqliteCacheMb: number;
  /** The DNS server domain verification asks (`ip:port`); unset: the system resolver. */
  dnsResolver: string | undefined;
  /** Raw clicks older than this many days are removed (rollups never are); null keeps every click. */
  clickRetentionDays: number | null;
}

export type TrustProxy = false | number | string[];

/**
 * What each variable accepts, in words, for those whose schema would otherwise answer in Zod's terms
 * ("expected number, received NaN"). The others' schemas word their own messages, naming the variable.
 */
const ACCEPTED: Partial<Record<keyof Env, string>> = {
  PORT: 'a port number from 0 to 65535 (e.g. 3000)',
  FLAGS_OFF: `a comma list of ${flag.options.join(', ')}`,
  ANALYTICS: 'on or off',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: '0 or 1',
  IMPORT_ALLOW_PRIVATE_SOURCES: '0 or 1',
  HEALTH_CHECKS: 'on or off',
  HEALTH_ALLOW_PRIVATE_TARGETS: '0 or 1',
  SOCIAL_APP_MODE: 'development or live',
  SOCIAL_AUTHORIZE_BASE: 'an http(s) URL',
  SOCIAL_OAUTH_BASE: 'an http(s) URL',
  SOCIAL_API_BASE: 'an http(s) URL',
  SIGNUP_TIER: `one of ${TIERS.join(', ')}`,
  LOG_LEVEL: 'one of fatal, error, warn, info, debug, trace, silent',
};

/** One sentence per variable that is wrong, naming it and what it accepts. */
function problemsOf(issues: readonly z.core.$ZodIssue[], env: NodeJS.ProcessEnv): string[] {
  const problems = new Set<string>();
  for (const issue of issues) {
    const name = String(issue.path[0] ?? '');
    const accepted = ACCEPTED[name as keyof Env];
    if (accepted) problems.add(`${name} must be ${accepted}${shownValue(env[name])}`);
    else if (issue.message.includes(name)) problems.add(issue.message);
    else problems.add(`${name}: ${issue.message}`);
  }
  return [...problems];
}

/** Parses the environment once; fails fast with every problem, each a sentence naming its variable. */
export function parseConfig(env: NodeJS.ProcessEnv, mode: ServerMode): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(problemsOf(parsed.error.issues, env));
  const e = parsed.data;
  // The engine's default port differs from the hosted service's, so both run side by side on one machine.
  const port = e.PORT ?? (mode === 'engine' ? ENGINE_DEFAULT_PORT : HOSTED_DEFAULT_PORT);
  const baseUrl = (e.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const defaultDb = mode === 'engine' ? 'sqlite:./data/engine.db' : 'sqlite:./data/linkhop.db';
  const databaseUrl = e.DATABASE_URL ?? defaultDb;
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError([
      `DATABASE_URL must be sqlite:<path> (e.g. sqlite:./data/linkhop.db) or postgres://user:password@host:5432/database${shownValue(databaseUrl)}`,
    ]);
  }
  if (e.ANALYTICS_URL !== undefined) {
    try {
      parseClickhouseUrl(e.ANALYTICS_URL);
    } catch (error) {
      throw new ConfigError([`${(error as Error).message}${shownValue(e.ANALYTICS_URL)}`]);
    }
  }
  const dataDir = databaseUrl.startsWith('sqlite:')
    ? dirnameOf(databaseUrl.slice('sqlite:'.length))
    : './data';
  return {
    mode,
    port,
    host: e.HOST,
    baseUrl,
    databaseUrl,
    dataDir,
    redisUrl: e.REDIS_URL,
    sessionSecret: e.SESSION_SECRET,
    apiToken: e.API_TOKEN,
    flagsOff: new Set(e.FLAGS_OFF),
    analytics: e.ANALYTICS === 'on',
    analyticsUrl: e.ANALYTICS_URL ?? null,
    allowPrivateWebhookTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === '1',
    allowPrivateImportSources: e.IMPORT_ALLOW_PRIVATE_SOURCES === '1',
    healthChecks: e.HEALTH_CHECKS === 'on',
    allowPrivateHealthTargets: e.HEALTH_ALLOW_PRIVATE_TARGETS === '1',
    allowPrivateSsoIssuers: e.SSO_ALLOW_PRIVATE_ISSUERS === '1',
    social: {
      appId: e.SOCIAL_APP_ID,
      appSecret: e.SOCIAL_APP_SECRET,
      vaultKey: e.TOKEN_VAULT_KEY,
      verifyToken: e.SOCIAL_VERIFY_TOKEN,
      appMode: e.SOCIAL_APP_MODE,
      authorizeBase: e.SOCIAL_AUTHORIZE_BASE,
      oauthBase: e.SOCIAL_OAUTH_BASE,
      apiBase: e.SOCIAL_API_BASE,
    },
    cronSecret: e.CRON_SECRET,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    signupTier: e.SIGNUP_TIER,
    platformsFile: e.PLATFORMS_FILE,
    escapeMatrixFile: e.ESCAPE_MATRIX_FILE,
    dashboardDir: e.DASHBOARD_DIR,
    logLevel: e.LOG_LEVEL,
    geoHeader: e.GEO_HEADER.toLowerCase(),
    receiptSigningKey: e.RECEIPT_SIGNING_KEY,
    trustProxy: e.TRUST_PROXY ?? false,
    spillDir: e.SPILL_DIR ?? `${dataDir}/spill`,
    sqliteCacheMb: e.SQLITE_CACHE_MB,
    dnsResolver: e.DNS_RESOLVER,
    clickRetentionDays: e.CLICK_RETENTION_DAYS ?? null,
  };
}

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `1` -> 1 hop; `10.0.0.0/8, ::1, loopback` -> that list; anything else -> null (a start error). */
function parseTrustProxy(value: string | undefined): TrustProxy | null {
  if (value === undefined) return false;
  const text = value.trim();
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const valid = (entry: string) => {
    if (NAMED_RANGES.has(entry)) return true;
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return false;
    if (bits === undefined) return true;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
  };
  return entries.length > 0 && entries.every(valid) ? entries : null;
}

function dirnameOf(path: string): string {
  if (path === ':memory:') return './data';
  const index = path.lastIndexOf('/');
  return index <= 0 ? (index === 0 ? '/' : '.') : path.slice(0, index);
}

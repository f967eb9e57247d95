#!/usr/bin/env node
// First: keeps Node's tick-object maps alive before anything else runs (src/keep-tick-maps.ts).
import '../keep-tick-maps.js';

/**
 * The linkhop command. Output a script reads is one JSON object on one stdout line; errors go to stderr
 * with a non-zero exit status.
 */

const USAGE = `usage: linkhop <command>

  serve      run the hosted multi-tenant service (migrates first)
  engine     run the self-hosted single-tenant redirect engine (migrates first)
  migrate    apply migrations to DATABASE_URL and exit
  org create --name N --tier T [--email E --password P]
  org set-tier ORG_ID TIER
  org list | org show ORG_ID
  org purge ORG_ID            erase an organization and its links (they stop redirecting)
  member add ORG_ID --email E --role owner|admin|member|viewer [--password P]
  key create ORG_ID [--name N] [--scopes links:read,analytics:read]
  key list ORG_ID
  key revoke KEY_ID
  link create URL --org ORG_ID [--slug S --tags a,b ...]   make a link as POST /v1/links does
  link list --org ORG_ID [--limit N --offset N --q TEXT]    list links as GET /v1/links does
  link get LINK_ID --org ORG_ID | link stats LINK_ID --org ORG_ID
  import SOURCE --org ORG_ID ...   bring links from csv, bitly, shlink, kutt, dub or yourls
  analytics backfill --to clickhouse|main | analytics verify [--from D --to D]   move analytics to ANALYTICS_URL, or back
  mcp        the MCP server on stdio, for an AI assistant (LINKHOP_API_KEY, LINKHOP_URL)`;

// Each command loads only its own modules: the engine never pays for the hosted service's code (about
// 20 MB of RSS), nor a one-line `key list` for the server's.
const commands: Record<string, (args: string[]) => Promise<void>> = {
  serve: async () => (await import('./serve.js')).runServe('hosted'),
  engine: async () => (await import('./serve.js')).runServe('engine'),
  migrate: async () => (await import('./migrate.js')).runMigrate(),
  org: async (args) => (await import('./org.js')).runOrg(args),
  key: async (args) => (await import('./key.js')).runKey(args),
  import: async (args) => (await import('./import.js')).runImport(args),
  member: async (args) => (await import('./member.js')).runMember(args),
  link: async (args) => (await import('./link.js')).runLink(args),
  analytics: async (args) => (await import('./analytics.js')).runAnalytics(args),
  mcp: async (args) => (await import('./mcp.js')).runMcp(args),
};

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const command = commands[name];
  if (!command) throw new Error(`unknown command: ${name}\n\n${USAGE}`);
  await command(rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  // Validation errors (config, PLATFORMS_FILE) carry every problem: list each one the message lacks.
  const problems = (error as { problems?: unknown }).problems;
  const unlisted = Array.isArray(problems)
    ? problems.map(String).filter((problem) => !message.includes(problem))
    : [];
  process.stderr.write(`linkhop: ${[message, ...unlisted].join('\n  - ')}\n`);
  process.exit(1);
});

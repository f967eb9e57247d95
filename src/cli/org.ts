import { parseArgs } from 'node:util';
import { featuresOf, isTier, TIERS } from '../tenancy/plans.js';
import { CliError, printJson, withAccounts, withServices } from './context.js';

const USAGE = `usage: linkhop org create --name NAME --tier TIER [--email EMAIL --password PASSWORD]
       linkhop org set-tier ORG_ID TIER
       linkhop org list
       linkhop org show ORG_ID
       linkhop org purge ORG_ID`;

/** `org list`, `org show`, `org purge`: reading organizations and the operator's purge. */
async function runOrgRead(sub: string | undefined, rest: string[]): Promise<boolean> {
  if (sub !== 'list' && sub !== 'show' && sub !== 'purge') return false;
  const { positionals } = parseArgs({ args: rest, allowPositionals: true });
  if (sub === 'list') {
    printJson({ organizations: await withAccounts((accounts) => accounts.listOrganizations()) });
    return true;
  }
  const [orgId] = positionals;
  if (sub === 'show') {
    if (!orgId) throw new CliError(USAGE);
    printJson(
      await withServices(async ({ accounts, members }) => {
        const org = await accounts.getOrganization(orgId);
        const context = { orgId, tier: org.tier, features: featuresOf(org.tier) };
        const keys = await accounts.listApiKeys(orgId);
        return {
          ...org,
          members: await members.list(context),
          activeKeys: keys.filter((key) => key.revokedAt === null).length,
        };
      }),
    );
    return true;
  }
  if (sub === 'purge') {
    if (!orgId) throw new CliError(USAGE);
    // Breaks the organization's links on purpose: the one path that does, and only the operator's.
    const { purged, untold } = await withServices(
      async ({ purgeOrganization, untold }) => ({ purged: await purgeOrganization(orgId), untold }),
      { changesCaches: { command: 'org purge', drops: 'the purged links' } },
    );
    printJson(purged);
    // Purged, but instances still serve the links from their caches: the operator must act, so it fails.
    if (untold.length > 0)
      throw new CliError(
        `${orgId} is purged, but the running instances were not told (see the warning above): they serve ` +
          'its links from their caches until those expire (a minute); restart them to drop the links now.',
      );
    return true;
  }
  return false;
}

function tierOf(value: string | undefined) {
  if (!isTier(value)) throw new CliError(`tier must be one of ${TIERS.join(', ')}\n${USAGE}`);
  return value;
}

/** `linkhop org create`, `set-tier`, `list`, `show` and `purge`. */
export async function runOrg(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (await runOrgRead(sub, rest)) return;
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        tier: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
      },
    });
    if (!values.name?.trim()) throw new CliError(`--name is required\n${USAGE}`);
    if (Boolean(values.email) !== Boolean(values.password))
      throw new CliError('--email and --password go together');
    if (values.password !== undefined && values.password.length < 8)
      throw new CliError('--password needs at least 8 characters');
    const tier = tierOf(values.tier);
    printJson(
      await withAccounts((accounts) =>
        accounts.createOrganization({
          name: values.name?.trim() ?? '',
          tier,
          ...(values.email && values.password ? { email: values.email, password: values.password } : {}),
        }),
      ),
    );
    return;
  }
  if (sub === 'set-tier') {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true });
    const [orgId, tier] = positionals;
    if (!orgId) throw new CliError(USAGE);
    const valid = tierOf(tier);
    printJson(
      await withAccounts((accounts) => accounts.setTier(orgId, valid), {
        changesCaches: { command: 'org set-tier', drops: "the organization's cached links" },
      }),
    );
    return;
  }
  throw new CliError(USAGE);
}

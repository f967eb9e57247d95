import { parseArgs } from 'node:util';
import { isTier, TIERS } from '../accounts/plans.js';
import { CliError, printJson, withAccounts } from './context.js';

const USAGE = `usage: linkhop org create --name NAME --tier TIER [--email EMAIL --password PASSWORD]
       linkhop org set-tier ORG_ID TIER`;

function tierOf(value: string | undefined) {
  if (!isTier(value)) throw new CliError(`tier must be one of ${TIERS.join(', ')}\n${USAGE}`);
  return value;
}

/** `linkhop org create` and `linkhop org set-tier`. */
export async function runOrg(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
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
    printJson(await withAccounts((accounts) => accounts.setTier(orgId, valid)));
    return;
  }
  throw new CliError(USAGE);
}

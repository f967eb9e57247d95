import { parseArgs } from 'node:util';
import { isScope, SCOPES, type Scope } from '../tenancy/permissions.js';
import { hasFeature, lowestTierWith, PLAN_NAMES } from '../tenancy/plans.js';
import { CliError, printJson, withAccounts } from './context.js';

const USAGE = `usage: linkhop key create ORG_ID [--name NAME] [--scopes links:read,analytics:read]
       linkhop key list ORG_ID
       linkhop key revoke KEY_ID`;

function scopesOf(value: string | undefined): Scope[] {
  if (value === undefined) return ['all'];
  const scopes = value
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (scopes.length === 0 || unknown.length > 0)
    throw new CliError(
      `--scopes is a comma list of ${SCOPES.join(', ')}${unknown.length ? ` (not: ${unknown.join(', ')})` : ''}`,
    );
  return scopes as Scope[];
}

/** `linkhop key create` (the key is printed once), `linkhop key list` and `linkhop key revoke`. */
export async function runKey(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { positionals, values } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { name: { type: 'string' }, scopes: { type: 'string' } },
  });
  const [id] = positionals;
  if (!id || positionals.length !== 1) throw new CliError(USAGE);
  if (sub === 'create') {
    const key = { name: values.name?.trim() || 'linkhop CLI', scopes: scopesOf(values.scopes) };
    const { minted, tier } = await withAccounts(async (accounts) => {
      const { tier } = await accounts.getOrganization(id);
      return { minted: await accounts.mintApiKey(id, key), tier };
    });
    printJson(minted);
    // Minted all the same (the plan may change later), but the operator hears it answers 401 until then.
    if (!hasFeature(tier, 'api'))
      process.stderr.write(
        `warning: this organization is on ${PLAN_NAMES[tier]}, which has no API: the key gets 401 until the ` +
          `organization is on a plan with the API (${PLAN_NAMES[lowestTierWith('api')]}: linkhop org set-tier ${id} ${lowestTierWith('api')})\n`,
      );
    return;
  }
  if (sub === 'list') {
    printJson(
      await withAccounts(async (accounts) => {
        await accounts.getOrganization(id);
        return { keys: (await accounts.listApiKeys(id)).map(({ orgId: _orgId, ...key }) => key) };
      }),
    );
    return;
  }
  if (sub === 'revoke') {
    const revoked = await withAccounts((accounts) => accounts.revokeApiKey(id));
    if (!revoked) throw new CliError(`no live API key ${id}`);
    printJson({ revoked: true });
    return;
  }
  throw new CliError(USAGE);
}

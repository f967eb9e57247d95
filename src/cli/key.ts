import { parseArgs } from 'node:util';
import { CliError, printJson, withAccounts } from './context.js';

const USAGE = `usage: linkhop key create ORG_ID
       linkhop key revoke KEY_ID`;

/** `linkhop key create` (the key is printed once) and `linkhop key revoke`. */
export async function runKey(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { positionals } = parseArgs({ args: rest, allowPositionals: true });
  const [id] = positionals;
  if (!id || positionals.length !== 1) throw new CliError(USAGE);
  if (sub === 'create') {
    printJson(
      await withAccounts(async (accounts) => {
        await accounts.getOrganization(id);
        return accounts.mintApiKey(id);
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

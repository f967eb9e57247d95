import { parseArgs } from 'node:util';
import { OPERATOR } from '../accounts/service.js';
import { isRole, ROLES } from '../tenancy/permissions.js';
import { featuresOf } from '../tenancy/plans.js';
import { CliError, printJson, withServices } from './context.js';

const USAGE = 'usage: linkhop member add ORG_ID --email EMAIL --role ROLE [--password PASSWORD]';

/**
 * `linkhop member add`: an existing person joins the organization with the role; a new one needs
 * --password (8+) and gets an account. The audit log names the operator.
 */
export async function runMember(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'add') throw new CliError(USAGE);
  const { positionals, values } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { email: { type: 'string' }, role: { type: 'string' }, password: { type: 'string' } },
  });
  const [orgId] = positionals;
  if (!orgId || positionals.length !== 1) throw new CliError(USAGE);
  if (!values.email?.includes('@')) throw new CliError(`--email is required\n${USAGE}`);
  if (!isRole(values.role)) throw new CliError(`--role is one of ${ROLES.join(', ')}\n${USAGE}`);
  const role = values.role;
  const email = values.email;
  printJson(
    await withServices(async ({ accounts, members }) => {
      const org = await accounts.getOrganization(orgId);
      const context = { orgId, tier: org.tier, features: featuresOf(org.tier), actor: OPERATOR };
      return members.add(context, {
        email,
        role,
        ...(values.password !== undefined ? { password: values.password } : {}),
      });
    }),
  );
}

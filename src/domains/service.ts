import type { AuditLog } from '../audit/service.js';
import { type AppError, appError, featureError } from '../errors.js';
import type { Store } from '../store/database.js';
import { isUniqueViolation } from '../store/database.js';
import type { DomainTable } from '../store/migrations/014-domains.js';
import type { OrgContext } from '../tenancy/context.js';
import type { TxtLookup } from './dns-txt.js';
import { isServiceHost, normalizeHostname } from './hostnames.js';
import { createDomainRepo } from './repo.js';
import type { Domain } from './schema.js';

export interface DomainServiceDeps {
  store: Store;
  baseUrl: string;
  lookupTxt: TxtLookup;
  now: () => Date;
  uuid: () => string;
  randomToken: () => string;
  /** The audit log: each add, verification and removal writes its row in the change's transaction. */
  audit?: AuditLog;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const recordName = (hostname: string) => `_linkhop.${hostname}`;
const recordValue = (token: string) => `linkhop-verify=${token}`;

function present(row: DomainTable): Domain {
  return {
    id: row.id,
    hostname: row.hostname,
    verified: row.verified_at !== null,
    verification: { type: 'TXT', name: recordName(row.hostname), value: recordValue(row.token) },
    createdAt: row.created_at,
    verifiedAt: row.verified_at,
  };
}

function hostnameError(message: string): AppError {
  return appError('invalid_body', message, { issues: [{ code: 'custom', path: ['hostname'], message }] });
}

export function createDomainService(deps: DomainServiceDeps) {
  const repo = createDomainRepo(deps.store);
  const requireDomains = (ctx: OrgContext) => {
    if (!ctx.features.customDomains) throw featureError('customDomains');
  };
  const find = async (ctx: OrgContext, id: string) => {
    // Ids are UUIDs: anything else names no domain, and never reaches the database.
    if (!UUID.test(id)) throw appError('not_found', 'No such domain');
    const row = await repo.find(ctx.orgId, id);
    if (!row) throw appError('not_found', 'No such domain');
    return row;
  };

  return {
    /** Adds a hostname, unverified, with the TXT record that will prove it. */
    async create(ctx: OrgContext, input: string): Promise<Domain> {
      requireDomains(ctx);
      const normalized = normalizeHostname(input);
      if ('problem' in normalized) throw hostnameError(normalized.problem);
      const { hostname } = normalized;
      if (isServiceHost(hostname, deps.baseUrl)) {
        throw hostnameError('hostname cannot be the service’s own host or a name under it');
      }
      if (await repo.verifiedElsewhere(ctx.orgId, hostname)) throw appError('domain_taken');
      const row: DomainTable = {
        id: deps.uuid(),
        org_id: ctx.orgId,
        hostname,
        token: deps.randomToken(),
        verified_at: null,
        created_at: deps.now().toISOString(),
      };
      try {
        await repo.transaction(async (trx) => {
          await repo.insert(trx, row);
          await deps.audit?.record(trx, ctx, {
            action: 'domain.added',
            target: { type: 'domain', id: row.id },
            changes: { hostname: { from: null, to: hostname } },
          });
        });
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw appError('domain_taken', 'This organization has already added this hostname');
        }
        throw error;
      }
      return present(row);
    },

    async list(ctx: OrgContext): Promise<Domain[]> {
      const rows = await repo.list(ctx.orgId);
      return rows.map(present);
    },

    /** Looks the TXT record up now; verified once it carries the value, for good. */
    async verify(ctx: OrgContext, id: string): Promise<Domain> {
      requireDomains(ctx);
      const row = await find(ctx, id);
      if (row.verified_at !== null) return present(row);
      if (await repo.verifiedElsewhere(ctx.orgId, row.hostname)) throw appError('domain_taken');
      const expected = { type: 'TXT', name: recordName(row.hostname), value: recordValue(row.token) };
      const { found, failure } = await deps.lookupTxt(expected.name);
      if (!found.includes(expected.value)) {
        const message = failure
          ? `The DNS lookup of ${expected.name} failed (${failure}); try again in a few minutes`
          : found.length === 0
            ? `No TXT record at ${expected.name} yet; DNS changes can take a while to appear`
            : `The TXT records at ${expected.name} do not include ${expected.value}`;
        throw appError('domain_unverified', message, { expected, found });
      }
      const verifiedAt = deps.now().toISOString();
      try {
        await repo.transaction(async (trx) => {
          await repo.markVerified(trx, ctx.orgId, id, verifiedAt);
          await deps.audit?.record(trx, ctx, {
            action: 'domain.verified',
            target: { type: 'domain', id },
            changes: { hostname: row.hostname, verifiedAt: { from: null, to: verifiedAt } },
          });
        });
      } catch (error) {
        // Another organization verified the same name a moment earlier.
        if (isUniqueViolation(error)) throw appError('domain_taken');
        throw error;
      }
      return present({ ...row, verified_at: verifiedAt });
    },

    /**
     * Refused while any link is on the hostname, archived ones too (they keep redirecting). No plan gate:
     * a downgrade can still tidy up.
     */
    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      const row = await find(ctx, id);
      if (row.verified_at !== null) {
        const links = await repo.linksOnHost(row.hostname);
        if (links > 0) {
          throw appError(
            'domain_in_use',
            `${links} link(s) use ${row.hostname}; move them to another hostname first`,
            {
              links,
            },
          );
        }
      }
      await repo.transaction(async (trx) => {
        await repo.delete(trx, ctx.orgId, id);
        await deps.audit?.record(trx, ctx, {
          action: 'domain.removed',
          target: { type: 'domain', id },
          changes: { hostname: { from: row.hostname, to: null } },
        });
      });
      return { deleted: true };
    },

    /** Every verified hostname: the custom hosts the redirect answers on. */
    async verifiedHosts(): Promise<string[]> {
      return repo.verifiedHostnames();
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;

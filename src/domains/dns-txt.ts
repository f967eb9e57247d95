import { Resolver } from 'node:dns/promises';

/** The TXT strings published at `name` (each record's chunks joined); [] when there are none. */
export type TxtLookup = (name: string) => Promise<{ found: string[]; failure?: string }>;

const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA']);

/**
 * A real DNS lookup: the system's resolvers, or `server` (`ip:port`, DNS_RESOLVER) so tests and private
 * setups can point it at a DNS server of their own. Short timeouts: a verify call waits on it.
 */
export function createTxtLookup(server: string | undefined): TxtLookup {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (server) resolver.setServers([server]);
  return async (name) => {
    try {
      const records = await resolver.resolveTxt(name);
      return { found: records.map((chunks) => chunks.join('')) };
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ERROR';
      if (NO_RECORDS.has(code)) return { found: [] };
      return { found: [], failure: code };
    }
  };
}

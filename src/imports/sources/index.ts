import type { CreateImportInput, ImportSourceName } from '../schema.js';
import { openBitly } from './bitly.js';
import { openCsv } from './csv.js';
import { openDub } from './dub.js';
import type { SourceHttpDeps } from './http.js';
import type { ImportSource } from './items.js';
import { openKutt } from './kutt.js';
import { openShlink } from './shlink.js';
import { openYourls } from './yourls.js';

export { SourceBusy, SourceError, type SourceHttpDeps } from './http.js';
export type { ImportSource, SourcePage } from './items.js';

/** The names errors and the dashboard use. */
export const SOURCE_NAMES: Record<ImportSourceName, string> = {
  csv: 'CSV',
  bitly: 'Bitly',
  shlink: 'Shlink',
  kutt: 'Kutt',
  dub: 'Dub',
  yourls: 'YOURLS',
};

/** The pager of one import, from its (decrypted) parameters. */
export function openSource(input: CreateImportInput, deps: SourceHttpDeps): ImportSource {
  switch (input.source) {
    case 'csv':
      return openCsv(input);
    case 'bitly':
      return openBitly(input, deps);
    case 'shlink':
      return openShlink(input, deps);
    case 'kutt':
      return openKutt(input, deps);
    case 'dub':
      return openDub(input, deps);
    case 'yourls':
      return openYourls(input, deps);
  }
}

/** The import resource as GET /api/imports/{id} answers it (src/imports/schema.ts). */

export type ImportSourceName = 'csv' | 'bitly' | 'shlink' | 'kutt' | 'dub' | 'yourls';
export type ImportStatus = 'queued' | 'running' | 'done' | 'failed';

export interface ImportSummary {
  id: string;
  source: ImportSourceName;
  status: ImportStatus;
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  errorCount: number;
  createdAt: string;
  finishedAt: string | null;
}

export interface ImportDetail extends ImportSummary {
  errors: { item: string; reason: string }[];
}

export const SOURCE_NAMES: Record<ImportSourceName, string> = {
  csv: 'CSV file',
  bitly: 'Bitly',
  shlink: 'Shlink',
  kutt: 'Kutt',
  dub: 'Dub',
  yourls: 'YOURLS',
};

/** What each source asks for, in the body's field names, with the label and hint the form shows. */
export const SOURCE_FIELDS: Record<
  Exclude<ImportSourceName, 'csv'>,
  { name: string; label: string; hint: string; optional?: boolean; secret?: boolean }[]
> = {
  bitly: [
    { name: 'token', label: 'Access token', hint: 'Bitly → Settings → API: generate a token.', secret: true },
    { name: 'groupGuid', label: 'Group GUID', hint: 'Empty: the token’s default group.', optional: true },
  ],
  shlink: [
    { name: 'baseUrl', label: 'Shlink address', hint: 'The server’s address, e.g. https://s.example.com' },
    { name: 'apiKey', label: 'API key', hint: 'shlink api-key:generate', secret: true },
  ],
  kutt: [
    { name: 'baseUrl', label: 'Kutt address', hint: 'https://kutt.to or your own install' },
    { name: 'apiKey', label: 'API key', hint: 'Kutt → Settings → API key', secret: true },
  ],
  dub: [
    { name: 'apiKey', label: 'API key', hint: 'Dub → Settings → API keys (dub_...)', secret: true },
    { name: 'baseUrl', label: 'API address', hint: 'Empty: https://api.dub.co', optional: true },
  ],
  yourls: [
    { name: 'baseUrl', label: 'YOURLS address', hint: 'Where YOURLS is installed, e.g. https://sho.rt' },
    {
      name: 'signature',
      label: 'Signature token',
      hint: 'YOURLS admin → Tools → secure API token',
      secret: true,
    },
  ],
};

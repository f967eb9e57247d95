import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CreateImportInput, createImportBody, IMPORT_SOURCES } from '../imports/schema.js';
import { CliError } from './context.js';

export const IMPORT_USAGE = `usage: linkhop import <source> --org ORG_ID [options]

  csv     --file PATH               a CSV with a header row: url, slug, tags, title (- reads stdin)
  bitly   --token TOKEN [--group GUID] [--base-url URL]
  shlink  --base-url URL --api-key KEY
  kutt    --base-url URL --api-key KEY
  dub     --api-key KEY [--base-url URL]
  yourls  --base-url URL --signature SIGNATURE

Shows a progress bar on a terminal and prints the import as one JSON line when it ends.`;

const OPTIONS = {
  org: { type: 'string' },
  file: { type: 'string' },
  token: { type: 'string' },
  group: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  signature: { type: 'string' },
} as const;

/** `linkhop import <source> ...` as the organization and the body POST /v1/imports would take. */
export function parseImportArgs(args: string[]): { orgId: string; input: CreateImportInput } {
  const [source, ...rest] = args;
  if (!source || !(IMPORT_SOURCES as readonly string[]).includes(source)) {
    throw new CliError(`the source is one of ${IMPORT_SOURCES.join(', ')}\n\n${IMPORT_USAGE}`);
  }
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: rest, options: OPTIONS }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${IMPORT_USAGE}`);
  }
  if (!values.org) throw new CliError(`--org is required\n\n${IMPORT_USAGE}`);
  const body = {
    source,
    ...(source === 'csv' ? { csv: readCsvFile(values.file) } : {}),
    ...(values.token === undefined ? {} : { token: values.token }),
    ...(values.group === undefined ? {} : { groupGuid: values.group }),
    ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
    ...(values['api-key'] === undefined ? {} : { apiKey: values['api-key'] }),
    ...(values.signature === undefined ? {} : { signature: values.signature }),
  };
  const parsed = createImportBody.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${flagOf(issue.path)}: ${issue.message}`);
    throw new CliError(`${problems.join('\n')}\n\n${IMPORT_USAGE}`);
  }
  return { orgId: values.org, input: parsed.data };
}

const FLAGS: Record<string, string> = {
  csv: '--file',
  token: '--token',
  groupGuid: '--group',
  baseUrl: '--base-url',
  apiKey: '--api-key',
  signature: '--signature',
};

function flagOf(path: PropertyKey[]): string {
  const field = String(path[0] ?? '');
  return FLAGS[field] ?? (field || 'import');
}

function readCsvFile(file: string | undefined): string {
  if (!file) throw new CliError(`--file is required for a CSV import\n\n${IMPORT_USAGE}`);
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/**
 * The audience CSV (hosted-service.md section 2): RFC 4180 quoting and CRLF line ends, and every cell
 * that a spreadsheet would read as a formula (=, +, -, @, tab, carriage return first) neutralized with a
 * leading apostrophe, because the list holds text typed by strangers on a public form.
 */

import { csvCell } from '../core/csv.js';

export const AUDIENCE_CSV_HEADER = 'email,source_slug,country,consent_text,captured_at';

export interface CsvContact {
  email: string;
  sourceSlug: string | null;
  country: string | null;
  consentText: string;
  createdAt: string;
}

export function audienceCsv(contacts: readonly CsvContact[]): string {
  const lines = contacts.map((contact) =>
    [contact.email, contact.sourceSlug, contact.country, contact.consentText, contact.createdAt]
      .map(csvCell)
      .join(','),
  );
  return `${[AUDIENCE_CSV_HEADER, ...lines].join('\r\n')}\r\n`;
}

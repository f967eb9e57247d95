import { useState } from 'react';
import { post } from '../../api/client';
import { useWrite, WriteForm } from '../../components/confirm';
import {
  Card,
  EmptyState,
  formatDateTime,
  formatNumber,
  Loading,
  PageHeader,
  SelectField,
  TextArea,
  TextField,
} from '../../components/ui';
import { navigate } from '../../router';
import { useApi } from '../../use-api';
import { StatusBadge } from './ImportProgress';
import { type ImportSourceName, type ImportSummary, SOURCE_FIELDS, SOURCE_NAMES } from './types';
import '../settings/settings.css';
import './imports.css';

const SOURCES = Object.keys(SOURCE_NAMES) as ImportSourceName[];
const CSV_EXAMPLE = 'url,slug,tags,title\nhttps://example.com/spring,spring,promo|2024,Spring sale';

/**
 * Bring links from another shortener: pick the source, give its address and key (or a CSV), and the
 * import runs on the server; its page shows the progress. Recent imports are listed below.
 */
export function ImportsPage(_props: { params: Record<string, string>; path: string }) {
  const recent = useApi<{ imports: ImportSummary[] }>('/imports');
  const [source, setSource] = useState<ImportSourceName>('csv');
  const [values, setValues] = useState<Record<string, string>>({});
  const write = useWrite();
  const set = (name: string, value: string) => setValues((current) => ({ ...current, [name]: value }));

  const submit = () => {
    const fields = source === 'csv' ? [{ name: 'csv', optional: false }] : SOURCE_FIELDS[source];
    const body: Record<string, string> = { source };
    const missing: Record<string, string> = {};
    for (const field of fields) {
      const value = (values[field.name] ?? '').trim();
      if (value) body[field.name] = field.name === 'csv' ? (values.csv ?? '') : value;
      else if (!field.optional) missing[field.name] = 'Required';
    }
    return write.run(async () => {
      const { id } = await post<{ id: string }>('/imports', body);
      navigate(`/imports/${id}`);
    }, missing);
  };

  const readFile = async (file: File | undefined) => {
    if (file) set('csv', await file.text());
  };

  return (
    <div className="settings-page">
      <PageHeader
        title="Import links"
        subtitle="Move your links from Bitly, Shlink, Kutt, Dub, YOURLS or a CSV file. Slugs, tags, titles and dates come along."
      />
      <Card title="New import">
        <WriteForm write={write} onSubmit={() => void submit()} submitLabel="Start import">
          <SelectField
            label="From"
            value={source}
            onChange={(event) => {
              setSource(event.target.value as ImportSourceName);
              write.reset();
            }}
          >
            {SOURCES.map((name) => (
              <option key={name} value={name}>
                {SOURCE_NAMES[name]}
              </option>
            ))}
          </SelectField>
          {source === 'csv' ? (
            <>
              <TextField
                label="CSV file"
                type="file"
                accept=".csv,text/csv"
                onChange={(event) => void readFile(event.target.files?.[0])}
                hint="A header row naming url (required), slug, tags (separated by |) and title."
              />
              <TextArea
                label="CSV text"
                rows={6}
                spellCheck={false}
                placeholder={CSV_EXAMPLE}
                value={values.csv ?? ''}
                onChange={(event) => set('csv', event.target.value)}
                error={write.errors.csv}
              />
            </>
          ) : (
            SOURCE_FIELDS[source].map((field) => (
              <TextField
                key={`${source}-${field.name}`}
                label={field.optional ? `${field.label} (optional)` : field.label}
                type={field.secret ? 'password' : 'text'}
                autoComplete="off"
                spellCheck={false}
                value={values[field.name] ?? ''}
                onChange={(event) => set(field.name, event.target.value)}
                hint={field.hint}
                error={write.errors[field.name]}
              />
            ))
          )}
          <p className="hint">
            A slug already taken here is skipped and listed; running the same import again brings only what is
            new. Links on your own domain keep it once the domain is verified under Domains.
          </p>
        </WriteForm>
      </Card>

      <Card title="Recent imports">
        {!recent.data ? (
          <Loading label="Loading imports" />
        ) : recent.data.imports.length === 0 ? (
          <EmptyState title="No imports yet" />
        ) : (
          <ul className="hook-list import-list">
            {recent.data.imports.map((item) => (
              <li key={item.id} className="hook">
                <a href={`#/imports/${item.id}`}>
                  {SOURCE_NAMES[item.source]}, {formatDateTime(item.createdAt)}
                </a>
                <span>
                  {formatNumber(item.imported)} imported, {formatNumber(item.skipped)} skipped,{' '}
                  {formatNumber(item.failed)} failed
                </span>
                <StatusBadge status={item.status} />
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

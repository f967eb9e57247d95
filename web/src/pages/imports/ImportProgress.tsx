import { useEffect } from 'react';
import { Badge, Banner, Card, formatDateTime, formatNumber, Loading, PageHeader } from '../../components/ui';
import { useApi } from '../../use-api';
import { type ImportDetail, type ImportStatus, SOURCE_NAMES } from './types';
import './imports.css';

const POLL_MS = 1000;
const TONES: Record<ImportStatus, 'neutral' | 'brand' | 'good' | 'bad'> = {
  queued: 'neutral',
  running: 'brand',
  done: 'good',
  failed: 'bad',
};

export function StatusBadge({ status }: { status: ImportStatus }) {
  return <Badge tone={TONES[status]}>{status}</Badge>;
}

/** One import as it runs: a progress bar and counts read every second until it ends, then its errors. */
export function ImportProgressPage({ params }: { params: Record<string, string>; path: string }) {
  const id = params.id ?? '';
  const loaded = useApi<ImportDetail>(`/imports/${encodeURIComponent(id)}`);
  const item = loaded.data;
  const ongoing = item?.status === 'queued' || item?.status === 'running';
  const { reload } = loaded;
  useEffect(() => {
    if (!ongoing) return;
    const timer = setInterval(() => void reload(), POLL_MS);
    return () => clearInterval(timer);
  }, [ongoing, reload]);

  if (!item) {
    return loaded.error ? <Banner>{loaded.error}</Banner> : <Loading label="Loading the import" />;
  }
  const done = item.imported + item.skipped + item.failed;
  return (
    <div className="settings-page">
      <PageHeader
        title={`Import from ${SOURCE_NAMES[item.source]}`}
        subtitle={`Started ${formatDateTime(item.createdAt)}${item.finishedAt ? `, ended ${formatDateTime(item.finishedAt)}` : ''}`}
      />
      <Card title="Progress" actions={<StatusBadge status={item.status} />}>
        <progress
          className="import-bar"
          aria-label="Import progress"
          max={Math.max(item.total, 1)}
          value={item.status === 'done' ? Math.max(item.total, 1) : done}
        />
        <dl className="import-counts" data-testid="import-counts">
          <div>
            <dt>Processed</dt>
            <dd>
              {formatNumber(done)} of {formatNumber(item.total)}
            </dd>
          </div>
          <div>
            <dt>Imported</dt>
            <dd data-testid="imported">{formatNumber(item.imported)}</dd>
          </div>
          <div>
            <dt>Skipped</dt>
            <dd data-testid="skipped">{formatNumber(item.skipped)}</dd>
          </div>
          <div>
            <dt>Failed</dt>
            <dd data-testid="failed">{formatNumber(item.failed)}</dd>
          </div>
        </dl>
        {ongoing ? <p className="hint">Runs on the server: you may leave this page and come back.</p> : null}
        {item.status === 'done' ? (
          <p>
            <a href="#/links">See your links</a>
          </p>
        ) : null}
      </Card>
      {item.errors.length > 0 ? (
        <Card title={`Notes and errors (${formatNumber(item.errorCount)})`}>
          <div className="table-wrap">
            <table className="import-errors">
              <thead>
                <tr>
                  <th scope="col">Item</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {item.errors.map((error, index) => (
                  // Items may repeat (a note and a skip); the position is the identity.
                  // biome-ignore lint/suspicious/noArrayIndexKey: the list never reorders.
                  <tr key={index}>
                    <td className="mono">{error.item}</td>
                    <td>{error.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {item.errorCount > item.errors.length ? (
            <p className="hint">The first {item.errors.length} are shown.</p>
          ) : null}
        </Card>
      ) : null}
    </div>
  );
}

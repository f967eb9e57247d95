import { useEffect, useState } from 'react';
import { get, messageOf } from '../../api/client';
import type { AuditEntry } from '../../api/types';
import {
  Banner,
  Button,
  Card,
  EmptyState,
  formatDateTime,
  PageHeader,
  TableHead,
  TextField,
} from '../../components/ui';
import { can } from '../../roles';
import { useAuthed } from '../../session';
import '../settings/settings.css';

interface Page {
  entries: AuditEntry[];
  nextCursor: string | null;
}

/** `{field: {from, to}}` as one short line per field; secrets are only ever named. */
function describeChanges(changes: Record<string, unknown>): string {
  return Object.entries(changes)
    .map(([field, value]) => {
      if (value && typeof value === 'object' && 'changed' in value) return `${field} changed`;
      if (value && typeof value === 'object' && 'to' in value) {
        const { from, to } = value as { from: unknown; to: unknown };
        return `${field}: ${JSON.stringify(from)} → ${JSON.stringify(to)}`;
      }
      return `${field}: ${JSON.stringify(value)}`;
    })
    .join('; ');
}

/** Who changed what, newest first, for owners and admins; the CSV is the whole log. */
export function AuditLogPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const allowed = can(session, 'audit:read');
  const [action, setAction] = useState('');
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);

  const load = async (from: string | null, replace: boolean) => {
    setLoading(true);
    try {
      const query = new URLSearchParams({ limit: '50' });
      if (action.trim()) query.set('action', action.trim());
      if (from) query.set('cursor', from);
      const page = await get<Page>(`/audit-log?${query}`);
      setEntries((current) => (replace ? page.entries : [...current, ...page.entries]));
      setCursor(page.nextCursor);
      setError(undefined);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setLoading(false);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once; the filter reloads on submit.
  useEffect(() => {
    if (allowed) void load(null, true);
  }, [allowed]);

  if (!allowed)
    return (
      <div className="settings-page">
        <PageHeader title="Audit log" />
        <Banner kind="info">The audit log is for owners and admins of this workspace.</Banner>
      </div>
    );
  const exportUrl = `/api/audit-log/export${action.trim() ? `?action=${encodeURIComponent(action.trim())}` : ''}`;
  return (
    <div className="settings-page">
      <PageHeader
        title="Audit log"
        subtitle="Every change by a person or an API key in this workspace, newest first."
        actions={
          <a className="btn btn-secondary" href={exportUrl} download>
            Export CSV
          </a>
        }
      />
      {error ? <Banner>{error}</Banner> : null}
      <Card title="Changes">
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void load(null, true);
          }}
        >
          <TextField
            label="Action"
            placeholder="e.g. link.updated"
            value={action}
            onChange={(event) => setAction(event.target.value)}
          />
          <Button type="submit" busy={loading}>
            Filter
          </Button>
        </form>
        {entries.length === 0 && !loading ? (
          <EmptyState title="Nothing logged yet" />
        ) : (
          <div className="table-wrap">
            <table>
              <TableHead columns={['When', 'Who', 'Action', 'Target', 'Changes']} />
              <tbody>
                {entries.map((entry) => (
                  <tr key={entry.id}>
                    <td>{formatDateTime(entry.at)}</td>
                    <td>
                      {entry.actor.label} <span className="muted">({entry.actor.type})</span>
                    </td>
                    <td>
                      <code>{entry.action}</code>
                    </td>
                    <td>
                      {entry.target.type} <code>{entry.target.id.slice(0, 8)}</code>
                    </td>
                    <td className="changes">{describeChanges(entry.changes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {cursor ? (
          <Button busy={loading} onClick={() => void load(cursor, false)}>
            Load older
          </Button>
        ) : null}
      </Card>
    </div>
  );
}

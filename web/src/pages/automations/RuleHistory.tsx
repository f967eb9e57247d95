import type { Firing } from '../../api/types';
import { Banner, formatDateTime, Loading } from '../../components/ui';
import { useApi } from '../../use-api';
import { StatusBadge } from '../audience/words';

/** A rule's 100 most recent firings: what it answered, and whether the DM went out. */
export function RuleHistory({ id }: { id: string }) {
  const events = useApi<{ events: Firing[] }>(`/social/automations/${id}/events`);
  const rows = events.data?.events ?? [];
  return (
    <div className="history" id={`history-${id}`}>
      {events.error ? <Banner kind="error">{events.error}</Banner> : null}
      {events.loading && !events.data ? <Loading label="Loading history" /> : null}
      {events.data && rows.length === 0 ? (
        <p className="muted">Nothing yet. Each comment or message this rule answers shows up here.</p>
      ) : null}
      {rows.length > 0 ? (
        <div className="table-wrap au-wrap">
          <table>
            <caption className="sr-only">The 100 most recent firings</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">What happened</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  <td>
                    <StatusBadge status={row.status} />
                  </td>
                  <td>
                    {row.reason ??
                      (row.error ? <code>{row.error}</code> : null) ??
                      (row.status === 'sent' ? 'DM delivered.' : 'Waiting to send.')}
                  </td>
                  <td className="nowrap">{formatDateTime(row.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

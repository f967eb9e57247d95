import type { Broadcast } from '../../api/types';
import {
  Button,
  Card,
  EmptyState,
  formatDateTime,
  formatNumber,
  Loading,
  TableHead,
} from '../../components/ui';
import { StatusBadge } from './words';

/** Every broadcast, newest first: drafts can be edited and sent, the rest show how their send went. */
export function BroadcastList({
  broadcasts,
  loading,
  loaded,
  canSend,
  audienceOf,
  onEdit,
  onSend,
}: {
  broadcasts: Broadcast[];
  loading: boolean;
  loaded: boolean;
  canSend: boolean;
  /** Who a broadcast goes to, in words ("Everyone" or the segment's name). */
  audienceOf: (broadcast: Broadcast) => string;
  onEdit: (broadcast: Broadcast) => void;
  onSend: (broadcast: Broadcast) => void;
}) {
  return (
    <Card title="Send history">
      {loading && !loaded ? <Loading label="Loading broadcasts" /> : null}
      {loaded && broadcasts.length === 0 ? (
        <EmptyState title="No broadcasts yet">
          <p>
            Write a draft, check who it goes to, then send. Every email carries a one-click unsubscribe link,
            and people who unsubscribed are skipped.
          </p>
        </EmptyState>
      ) : null}
      {broadcasts.length > 0 ? (
        <div className="table-wrap au-wrap">
          <table className="broadcast-table au-stack">
            <TableHead columns={['Subject', 'Status', 'Recipients', 'Sent']} />
            <tbody>
              {broadcasts.map((item) => (
                <tr key={item.id} data-broadcast={item.id}>
                  <td>
                    <div className="broadcast-subject">{item.subject}</div>
                    <div className="muted small">To {audienceOf(item)}</div>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={item.status} />
                  </td>
                  <td data-label="Recipients">
                    {item.status === 'draft' ? (
                      <span className="muted">Not sent</span>
                    ) : (
                      <Counts broadcast={item} />
                    )}
                  </td>
                  <td className="nowrap" data-label="Sent">
                    {formatDateTime(item.sentAt)}
                  </td>
                  <td className="au-row-actions">
                    {item.status === 'draft' && canSend ? (
                      <>
                        <Button variant="ghost" className="btn-small" onClick={() => onEdit(item)}>
                          Edit
                        </Button>
                        <Button variant="primary" className="btn-small" onClick={() => onSend(item)}>
                          Send…
                        </Button>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Card>
  );
}

/** Recipients by outcome so far; a progress bar while the send is running. */
function Counts({ broadcast }: { broadcast: Broadcast }) {
  const { queued, sending, sent, failed, skipped } = broadcast.counts;
  const total = queued + sending + sent + failed + skipped;
  const done = sent + failed + skipped;
  const waiting = queued + sending;
  return (
    <div>
      <div className="counts">
        <Count value={sent} word="sent" />
        {failed > 0 ? <Count value={failed} word="failed" /> : null}
        {skipped > 0 ? <Count value={skipped} word="skipped" /> : null}
        {waiting > 0 ? <Count value={waiting} word="queued" /> : null}
      </div>
      {broadcast.status === 'sending' && total > 0 ? (
        <progress className="send-progress" max={total} value={done} aria-label="Sending progress">
          {done} of {total}
        </progress>
      ) : null}
    </div>
  );
}

function Count({ value, word }: { value: number; word: string }) {
  return (
    <span>
      <strong>{formatNumber(value)}</strong> {word}
    </span>
  );
}

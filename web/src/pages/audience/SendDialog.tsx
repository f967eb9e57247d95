import { useEffect, useRef } from 'react';
import { ApiError, get, post } from '../../api/client';
import type { Broadcast } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm';
import { Banner } from '../../components/ui';
import type { Loaded } from '../../use-api';
import { contactCount } from './words';

const POLL_MS = 1500;

/**
 * While any broadcast is sending, re-reads those broadcasts every POLL_MS until they settle, keeping the
 * list current and calling `onSettled` for each that has finished (sent or failed) on that read.
 */
export function useSendProgress(
  list: Loaded<{ broadcasts: Broadcast[] }>,
  onSettled: (broadcast: Broadcast) => void,
): void {
  const sendingIds = (list.data?.broadcasts ?? [])
    .filter((item) => item.status === 'sending')
    .map((item) => item.id)
    .join(',');
  // The timer outlives renders; it reads the newest list and callback through these.
  const listRef = useRef(list);
  listRef.current = list;
  const settledRef = useRef(onSettled);
  settledRef.current = onSettled;
  useEffect(() => {
    if (!sendingIds) return;
    const timer = setInterval(async () => {
      const fresh = await Promise.all(
        sendingIds.split(',').map((id) => get<Broadcast>(`/broadcasts/${id}`).catch(() => null)),
      );
      const current = listRef.current.data;
      if (!current) return;
      const byId = new Map(fresh.filter((item): item is Broadcast => item !== null).map((b) => [b.id, b]));
      listRef.current.setData({ broadcasts: current.broadcasts.map((item) => byId.get(item.id) ?? item) });
      for (const item of byId.values()) {
        if (item.status === 'sent' || item.status === 'failed') settledRef.current(item);
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [sendingIds]);
}

/** "Send this broadcast?" naming who it reaches; confirming starts the send on the server. */
export function SendDialog({
  broadcast,
  recipients,
  audience,
  onClose,
  onStarted,
}: {
  broadcast: Broadcast | null;
  recipients: number | undefined;
  /** "Everyone" or the segment's name. */
  audience: string;
  onClose: () => void;
  onStarted: (broadcast: Broadcast) => void;
}) {
  return (
    <ConfirmDialog
      open={broadcast !== null}
      title="Send this broadcast?"
      confirmLabel="Send now"
      danger={false}
      onClose={onClose}
      onConfirm={async () => {
        if (broadcast) onStarted(await startSend(broadcast));
      }}
    >
      {broadcast ? <SendSummary broadcast={broadcast} recipients={recipients} audience={audience} /> : null}
    </ConfirmDialog>
  );
}

async function startSend(broadcast: Broadcast): Promise<Broadcast> {
  try {
    return await post<Broadcast>(`/broadcasts/${broadcast.id}/send`);
  } catch (err) {
    // The server's words name the missing setting; say who can fix it.
    if (err instanceof ApiError && err.code === 'not_provisioned') {
      throw new Error(
        `${err.message}. This server cannot send email yet: the operator must set SMTP_URL and MAIL_FROM.`,
      );
    }
    throw err;
  }
}

function SendSummary({
  broadcast,
  recipients,
  audience,
}: {
  broadcast: Broadcast;
  recipients: number | undefined;
  audience: string;
}) {
  const everyone = audience === 'Everyone';
  return (
    <>
      <p>
        <strong>“{broadcast.subject}”</strong> goes to{' '}
        {recipients === undefined ? (
          everyone ? (
            'everyone on your list'
          ) : (
            `the segment ${audience}`
          )
        ) : (
          <strong>{contactCount(recipients)}</strong>
        )}
        {!everyone && recipients !== undefined ? ` in ${audience}` : null}.
      </p>
      {recipients === 0 ? (
        <Banner kind="warning">Nobody matches yet, so this send would reach no one.</Banner>
      ) : null}
      <p className="muted">
        People who unsubscribed are skipped. A sent broadcast cannot be edited or recalled.
      </p>
    </>
  );
}

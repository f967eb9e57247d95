import { type ReactNode, useState } from 'react';
import { messageOf } from '../../api/client';
import { Banner, Button, Modal } from '../../components/ui';

/**
 * A yes/no question in a native dialog. `onConfirm` runs the write; its failure is shown inside the
 * dialog (the dialog stays open), its success closes it.
 */
export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  danger = true,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const close = () => {
    if (busy) return;
    setError(undefined);
    onClose();
  };
  return (
    <Modal open={open} title={title} onClose={close}>
      <div className="confirm-body">{children}</div>
      {error ? <Banner kind="error">{error}</Banner> : null}
      <div className="form-actions confirm-actions">
        <Button variant="secondary" onClick={close} disabled={busy}>
          Cancel
        </Button>
        <Button
          variant={danger ? 'danger' : 'primary'}
          busy={busy}
          onClick={async () => {
            setBusy(true);
            setError(undefined);
            try {
              await onConfirm();
              setBusy(false);
              onClose();
            } catch (err) {
              setBusy(false);
              setError(messageOf(err));
            }
          }}
        >
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}

/** Badge tone for the status words used across audience, broadcasts and DM firings. */
export function statusTone(status: string): 'neutral' | 'good' | 'warn' | 'bad' | 'brand' {
  switch (status) {
    case 'sent':
    case 'active':
      return 'good';
    case 'failed':
    case 'revoked':
      return 'bad';
    case 'skipped':
    case 'needs_reconnect':
    case 'paused':
      return 'warn';
    case 'sending':
    case 'queued':
      return 'brand';
    default:
      return 'neutral';
  }
}

export const STATUS_WORDS: Record<string, string> = {
  draft: 'Draft',
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  failed: 'Failed',
  skipped: 'Skipped',
  active: 'Active',
  needs_reconnect: 'Needs reconnecting',
  revoked: 'Disconnected',
  paused: 'Paused',
};

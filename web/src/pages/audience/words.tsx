import { Badge, formatNumber } from '../../components/ui';

/** How the creator pages (audience, broadcasts, DM automations) put statuses and counts into words. */

/** Badge tone for the status words used across audience, broadcasts and DM firings. */
function statusTone(status: string): 'neutral' | 'good' | 'warn' | 'bad' | 'brand' {
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

/** A broadcast's, recipient's, Instagram account's or DM firing's status as a coloured word. */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={statusTone(status)}>{STATUS_WORDS[status] ?? status}</Badge>;
}

/** `1 contact`, `1,204 contacts`. */
export function contactCount(count: number): string {
  return `${formatNumber(count)} ${count === 1 ? 'contact' : 'contacts'}`;
}

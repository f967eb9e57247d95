import { useState } from 'react';
import { del, patch } from '../../api/client';
import type { Automation, AutomationStats, Link, SocialAccount, Trigger } from '../../api/types';
import { ConfirmDialog, useWrite } from '../../components/confirm';
import { Badge, Banner, Button, formatNumber, formatRate } from '../../components/ui';
import { useApi } from '../../use-api';
import { RuleHistory } from './RuleHistory';

/** "Comments on any post containing “guide”, “link”": the trigger as a sentence, for the card heading. */
function triggerSummary(trigger: Trigger): string {
  const what =
    trigger.type === 'comment'
      ? `Comments on ${trigger.mediaId ? `post ${trigger.mediaId}` : 'any post'}`
      : 'Direct messages';
  const { mode, keywords } = trigger.match;
  if (keywords.length === 0) return `${what}, from everyone`;
  const quoted = keywords.map((keyword) => `“${keyword}”`);
  if (mode === 'exact') return `${what} that say exactly ${quoted.join(' or ')}`;
  return `${what} containing ${quoted.join(', ')}`;
}

/** One rule: what triggers it, the DM it sends, how it has done, and pausing, editing or deleting it. */
export function RuleItem({
  rule,
  account,
  link,
  canWrite,
  onEdit,
  onChanged,
  onDeleted,
}: {
  rule: Automation;
  account: SocialAccount | undefined;
  link: Link | undefined;
  canWrite: boolean;
  onEdit: () => void;
  onChanged: (rule: Automation) => void;
  onDeleted: () => void;
}) {
  const stats = useApi<AutomationStats>(`/social/automations/${rule.id}/stats`);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const toggle = useWrite();
  const shortUrl = stats.data?.link?.shortUrl ?? link?.shortUrl;

  const setEnabled = (enabled: boolean) =>
    void toggle.run(async () => {
      onChanged(await patch<Automation>(`/social/automations/${rule.id}`, { enabled }));
    });

  return (
    <li className="rule" data-rule={rule.id}>
      <div className="rule-head">
        <div className="rule-title">
          <h3>{triggerSummary(rule.trigger)}</h3>
          <p className="muted rule-account">
            on @{account?.username ?? 'a removed account'}
            {link ? (
              <>
                {' '}
                · link <code>/{link.slug}</code>
              </>
            ) : null}
          </p>
        </div>
        <Badge tone={rule.enabled ? 'good' : 'warn'}>{rule.enabled ? 'Active' : 'Paused'}</Badge>
      </div>
      {rule.enabled && account && account.status !== 'active' ? (
        <p className="rule-warning">Not sending: @{account.username} needs to be connected again.</p>
      ) : null}
      <div className="dm-preview">
        <span className="sr-only">The DM they receive: </span>
        <p>{rule.dmText}</p>
        {shortUrl ? <p className="dm-link">{shortUrl}</p> : null}
      </div>
      {toggle.error ? <Banner kind="error">{toggle.error}</Banner> : null}
      <RuleStats stats={stats.data} />
      <div className="rule-actions">
        {rule.enabled ? (
          <Button
            variant="secondary"
            className="btn-small"
            busy={toggle.busy}
            onClick={() => setEnabled(false)}
          >
            Pause
          </Button>
        ) : canWrite ? (
          <Button
            variant="secondary"
            className="btn-small"
            busy={toggle.busy}
            onClick={() => setEnabled(true)}
          >
            Resume
          </Button>
        ) : (
          <span className="muted small">Resuming needs the Legend plan.</span>
        )}
        {canWrite ? (
          <Button variant="ghost" className="btn-small" onClick={onEdit}>
            Edit
          </Button>
        ) : null}
        <Button
          variant="ghost"
          className="btn-small"
          aria-expanded={historyOpen}
          aria-controls={`history-${rule.id}`}
          onClick={() => setHistoryOpen((open) => !open)}
        >
          {historyOpen ? 'Hide history' : 'Show history'}
        </Button>
        <Button variant="danger" className="btn-small rule-delete" onClick={() => setConfirmDelete(true)}>
          Delete
        </Button>
      </div>
      {historyOpen ? <RuleHistory id={rule.id} /> : null}
      <ConfirmDialog
        open={confirmDelete}
        title="Delete this rule?"
        confirmLabel="Delete rule"
        onClose={() => setConfirmDelete(false)}
        onConfirm={async () => {
          await del(`/social/automations/${rule.id}`);
          onDeleted();
        }}
      >
        <p>
          The rule and its whole firing history are removed. The link itself is not touched and keeps
          redirecting.
        </p>
      </ConfirmDialog>
    </li>
  );
}

/** The rule's DM outcomes and what the link in them did; a dash until the stats arrive. */
function RuleStats({ stats }: { stats: AutomationStats | undefined }) {
  const count = (value: number | undefined) => (value === undefined ? '—' : formatNumber(value));
  const facts: [label: string, value: string][] = [
    ['DMs sent', count(stats?.sent)],
    ['People reached', count(stats?.recipients)],
    ['Failed', count(stats?.failed)],
    ['Skipped', count(stats?.skipped)],
    ['Link clicks', count(stats?.link?.clicks)],
    ['App-open rate', formatRate(stats?.link?.appOpenRate)],
  ];
  return (
    <dl className="rule-stats">
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

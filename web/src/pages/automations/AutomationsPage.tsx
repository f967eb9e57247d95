import { useEffect, useState } from 'react';
import { ApiError, del, messageOf, patch, post } from '../../api/client';
import type {
  Automation,
  AutomationStats,
  Firing,
  Link,
  SocialAccount,
  SocialMeta,
  Trigger,
} from '../../api/types';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  EmptyState,
  formatDate,
  formatDateTime,
  formatNumber,
  formatRate,
  Loading,
  PageHeader,
  SelectField,
  TextArea,
  TextField,
  Toggle,
} from '../../components/ui';
import { hashQuery } from '../../router';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { ConfirmDialog, STATUS_WORDS, statusTone } from '../audience/confirm';
import './automations.css';

const MAX_KEYWORDS = 20;

export function AutomationsPage({ path }: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const canWrite = session.features.dmAutomations;
  const meta = useApi<SocialMeta>('/social/meta');
  const accounts = useApi<{ accounts: SocialAccount[] }>('/social');
  const rules = useApi<{ automations: Automation[] }>('/social/automations');
  const links = useApi<{ links: Link[] }>('/links?limit=200');
  // The outcome of the connect round-trip arrives once in the hash query; the address is then tidied.
  const [outcome] = useState(() => {
    const query = hashQuery(path);
    return { connected: query.get('connected'), error: query.get('connect_error') };
  });
  useEffect(() => {
    if (outcome.connected !== null || outcome.error !== null) {
      window.history.replaceState(null, '', '#/automations');
    }
  }, [outcome]);
  const [editing, setEditing] = useState<Automation | 'new' | null>(null);
  const [notice, setNotice] = useState<string>();
  const [toDisconnect, setToDisconnect] = useState<SocialAccount | null>(null);

  const accountList = accounts.data?.accounts ?? [];
  const ruleList = rules.data?.automations ?? [];
  const linkList = links.data?.links ?? [];
  const usable = accountList.filter((account) => account.status !== 'revoked');
  const authUrl = meta.data?.authUrl ?? null;

  const replaceRule = (rule: Automation) => {
    const current = rules.data?.automations ?? [];
    const exists = current.some((item) => item.id === rule.id);
    rules.setData({
      automations: exists ? current.map((item) => (item.id === rule.id ? rule : item)) : [...current, rule],
    });
  };

  return (
    <>
      <PageHeader
        title="DM automations"
        subtitle="When someone comments a keyword or sends a message on Instagram, reply with a DM that carries one of your links."
      />
      {outcome.connected !== null ? (
        <Banner kind="success">
          Instagram connected{outcome.connected ? ` as @${outcome.connected}` : ''}. Create a rule below to
          start sending DMs.
        </Banner>
      ) : null}
      {outcome.error ? <Banner kind="error">{outcome.error}</Banner> : null}
      {canWrite ? null : (
        <>
          <UpgradeNotice feature="dmAutomations" />
          {ruleList.length > 0 ? (
            <p className="muted gate-note">
              Your existing rules stay visible: you can pause or delete them, and read their history.
            </p>
          ) : null}
        </>
      )}
      {notice ? <Banner kind="success">{notice}</Banner> : null}

      <Card
        title="Instagram accounts"
        actions={
          authUrl ? (
            <a className="btn btn-primary" href={authUrl}>
              Connect Instagram
            </a>
          ) : null
        }
      >
        {meta.error ? <Banner kind="error">{meta.error}</Banner> : null}
        {meta.data && !meta.data.appConfigured ? (
          <Banner kind="warning">
            Instagram is not set up on this server yet. The operator must set <code>SOCIAL_APP_ID</code>,{' '}
            <code>SOCIAL_APP_SECRET</code> and <code>TOKEN_VAULT_KEY</code>, then restart linkhop; after that
            you can connect an account here.
          </Banner>
        ) : null}
        {meta.data?.appConfigured && meta.data.appMode === 'development' && authUrl ? (
          <p className="muted dev-note">
            The Instagram app is in development mode: only accounts added as its testers can connect.
          </p>
        ) : null}
        {accounts.error ? <Banner kind="error">{accounts.error}</Banner> : null}
        {accounts.loading && !accounts.data ? <Loading label="Loading accounts" /> : null}
        {accounts.data && accountList.length === 0 ? (
          <p className="muted no-accounts">
            No Instagram account connected yet.
            {authUrl ? ' Connect a Business or Creator account to start.' : ''}
          </p>
        ) : null}
        {accountList.length > 0 ? (
          <ul className="account-list">
            {accountList.map((account) => (
              <li key={account.id} className="account">
                <div className="account-avatar" aria-hidden="true">
                  {account.username.slice(0, 1).toUpperCase()}
                </div>
                <div className="account-main">
                  <div className="account-head">
                    <strong>@{account.username}</strong>
                    <Badge tone={statusTone(account.status)}>{STATUS_WORDS[account.status]}</Badge>
                  </div>
                  {account.status !== 'active' ? (
                    <p className="account-message">
                      {account.statusMessage ??
                        (account.status === 'revoked'
                          ? 'Disconnected. Connect Instagram again to resume DMs.'
                          : 'Instagram needs you to connect this account again. Its rules are paused until then.')}
                    </p>
                  ) : null}
                  <p className="muted account-meta">
                    Connected {formatDate(account.connectedAt)}
                    {account.status === 'active' && account.expiresAt
                      ? ` · access renews automatically before ${formatDate(account.expiresAt)}`
                      : ''}
                  </p>
                </div>
                <div className="account-actions">
                  {account.status !== 'active' && authUrl ? (
                    <a className="btn btn-secondary btn-small" href={authUrl}>
                      Reconnect
                    </a>
                  ) : null}
                  {account.status !== 'revoked' ? (
                    <Button
                      variant="danger"
                      className="btn-small"
                      onClick={() => setToDisconnect(account)}
                      aria-label={`Disconnect @${account.username}`}
                    >
                      Disconnect
                    </Button>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        ) : null}
      </Card>

      {editing !== null && canWrite ? (
        <RuleForm
          key={editing === 'new' ? 'new' : editing.id}
          initial={editing === 'new' ? null : editing}
          accounts={accountList}
          links={linkList}
          linksLoading={links.loading && !links.data}
          onCancel={() => setEditing(null)}
          onSaved={(rule, created) => {
            replaceRule(rule);
            setEditing(null);
            setNotice(created ? 'Rule created.' : 'Rule saved.');
          }}
        />
      ) : null}

      <Card
        title="Rules"
        actions={
          canWrite && usable.length > 0 && editing === null ? (
            <Button variant="primary" onClick={() => setEditing('new')}>
              New rule
            </Button>
          ) : null
        }
      >
        {rules.error ? <Banner kind="error">{rules.error}</Banner> : null}
        {rules.loading && !rules.data ? <Loading label="Loading rules" /> : null}
        {rules.data && ruleList.length === 0 ? (
          <EmptyState title="No rules yet">
            <p>
              {!canWrite
                ? 'Rules you create on the Legend plan appear here, with what each one sent.'
                : usable.length === 0
                  ? 'Connect an Instagram account, then add a rule: for example, DM your guide to everyone who comments “guide”.'
                  : 'Add a rule: for example, DM your guide to everyone who comments “guide”.'}
            </p>
          </EmptyState>
        ) : null}
        {ruleList.length > 0 ? (
          <>
            <p className="muted rule-order">
              Rules are checked oldest first; the first match sends the one reply Instagram allows per
              comment.
            </p>
            <ul className="rule-list">
              {ruleList.map((rule) => (
                <RuleItem
                  key={rule.id}
                  rule={rule}
                  account={accountList.find((account) => account.id === rule.accountId)}
                  link={linkList.find((link) => link.id === rule.linkId)}
                  canWrite={canWrite}
                  onEdit={() => {
                    setEditing(rule);
                    window.scrollTo(0, 0);
                  }}
                  onChanged={(next) => {
                    replaceRule(next);
                    setNotice(
                      next.enabled ? 'Rule resumed.' : 'Rule paused. It will not send DMs until resumed.',
                    );
                  }}
                  onDeleted={() => {
                    rules.setData({ automations: ruleList.filter((item) => item.id !== rule.id) });
                    setNotice('Rule deleted with its history. Its link keeps working.');
                  }}
                />
              ))}
            </ul>
          </>
        ) : null}
      </Card>

      <ConfirmDialog
        open={toDisconnect !== null}
        title="Disconnect this account?"
        confirmLabel="Disconnect"
        onClose={() => setToDisconnect(null)}
        onConfirm={async () => {
          if (!toDisconnect) return;
          await del(`/social/accounts/${toDisconnect.id}`);
          await accounts.reload();
          setNotice(`@${toDisconnect.username} disconnected. Its rules stay here, paused.`);
        }}
      >
        <p>
          linkhop forgets the access to <strong>@{toDisconnect?.username}</strong> and its rules stop sending
          DMs. The rules and their history stay here and work again when you reconnect the account.
        </p>
      </ConfirmDialog>
    </>
  );
}

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

function RuleItem({
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const accountLive = account?.status === 'active';
  const shortUrl = stats.data?.link?.shortUrl ?? link?.shortUrl;

  const setEnabled = async (enabled: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      onChanged(await patch<Automation>(`/social/automations/${rule.id}`, { enabled }));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

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
      {rule.enabled && account && !accountLive ? (
        <p className="rule-warning">Not sending: @{account.username} needs to be connected again.</p>
      ) : null}
      <div className="dm-preview">
        <span className="sr-only">The DM they receive: </span>
        <p>{rule.dmText}</p>
        {shortUrl ? <p className="dm-link">{shortUrl}</p> : null}
      </div>
      {error ? <Banner kind="error">{error}</Banner> : null}
      <dl className="rule-stats">
        <div>
          <dt>DMs sent</dt>
          <dd>{stats.data ? formatNumber(stats.data.sent) : '—'}</dd>
        </div>
        <div>
          <dt>People reached</dt>
          <dd>{stats.data ? formatNumber(stats.data.recipients) : '—'}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd>{stats.data ? formatNumber(stats.data.failed) : '—'}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd>{stats.data ? formatNumber(stats.data.skipped) : '—'}</dd>
        </div>
        <div>
          <dt>Link taps</dt>
          <dd>{stats.data?.link ? formatNumber(stats.data.link.clicks) : '—'}</dd>
        </div>
        <div>
          <dt>App-open rate</dt>
          <dd>{formatRate(stats.data?.link?.appOpenRate)}</dd>
        </div>
      </dl>
      <div className="rule-actions">
        {rule.enabled ? (
          <Button
            variant="secondary"
            className="btn-small"
            busy={busy}
            onClick={() => void setEnabled(false)}
          >
            Pause
          </Button>
        ) : canWrite ? (
          <Button variant="secondary" className="btn-small" busy={busy} onClick={() => void setEnabled(true)}>
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
      {historyOpen ? <History id={rule.id} /> : null}
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

function History({ id }: { id: string }) {
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
                    <Badge tone={statusTone(row.status)}>{STATUS_WORDS[row.status] ?? row.status}</Badge>
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

function RuleForm({
  initial,
  accounts,
  links,
  linksLoading,
  onSaved,
  onCancel,
}: {
  initial: Automation | null;
  accounts: SocialAccount[];
  links: Link[];
  linksLoading: boolean;
  onSaved: (rule: Automation, created: boolean) => void;
  onCancel: () => void;
}) {
  const selectable = accounts.filter(
    (account) => account.status !== 'revoked' || account.id === initial?.accountId,
  );
  const [accountId, setAccountId] = useState(initial?.accountId ?? selectable[0]?.id ?? '');
  const [linkId, setLinkId] = useState(initial?.linkId ?? '');
  const [dmText, setDmText] = useState(initial?.dmText ?? '');
  const [type, setType] = useState<Trigger['type']>(initial?.trigger.type ?? 'comment');
  const [mode, setMode] = useState<Trigger['match']['mode']>(initial?.trigger.match.mode ?? 'any');
  const [keywords, setKeywords] = useState(initial?.trigger.match.keywords.join(', ') ?? '');
  const [mediaId, setMediaId] = useState(initial?.trigger.mediaId ?? '');
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const keywordList = keywords
    .split(',')
    .map((keyword) => keyword.trim())
    .filter(Boolean);

  const save = async () => {
    setErrors({});
    setError(undefined);
    const local: Record<string, string> = {};
    if (!accountId) local.accountId = 'Choose the Instagram account';
    if (!linkId) local.linkId = 'Choose the link the DM carries';
    if (!dmText.trim()) local.dmText = 'Write the message your followers get';
    if (keywordList.length > MAX_KEYWORDS) local.keywords = `At most ${MAX_KEYWORDS} keywords`;
    if (Object.keys(local).length > 0) return setErrors(local);
    const body = {
      accountId,
      linkId,
      dmText,
      enabled,
      trigger: {
        type,
        match: { mode, keywords: keywordList },
        mediaId: type === 'comment' && mediaId.trim() ? mediaId.trim() : null,
      },
    };
    setBusy(true);
    try {
      const saved = initial
        ? await patch<Automation>(`/social/automations/${initial.id}`, body)
        : await post<Automation>('/social/automations', body);
      onSaved(saved, initial === null);
    } catch (err) {
      setErrors(fieldErrorsOf(err));
      if (Object.keys(fieldErrorsOf(err)).length === 0) setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title={initial ? 'Edit rule' : 'New rule'} className="rule-form">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
        noValidate
      >
        {error ? <Banner kind="error">{error}</Banner> : null}
        <div className="form-grid">
          <SelectField
            label="Instagram account"
            value={accountId}
            onChange={(event) => setAccountId(event.target.value)}
            error={errors.accountId}
          >
            {selectable.length === 0 ? <option value="">No connected account</option> : null}
            {selectable.map((account) => (
              <option key={account.id} value={account.id}>
                @{account.username}
                {account.status === 'active' ? '' : ` (${STATUS_WORDS[account.status]?.toLowerCase()})`}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Link in the DM"
            value={linkId}
            onChange={(event) => setLinkId(event.target.value)}
            error={errors.linkId}
            hint={
              links.length === 0 && !linksLoading ? (
                <>
                  You have no links yet. <a href="#/links/new">Create one</a> first.
                </>
              ) : (
                'The DM ends with this link’s short URL, so taps are counted and open the app.'
              )
            }
          >
            <option value="">Choose a link…</option>
            {links.map((link) => (
              <option key={link.id} value={link.id}>
                /{link.slug} → {hostOf(link.destination)}
              </option>
            ))}
          </SelectField>
        </div>
        <TextArea
          label="DM text"
          value={dmText}
          maxLength={900}
          rows={3}
          onChange={(event) => setDmText(event.target.value)}
          error={errors.dmText}
          hint="No links in the text: we add the link above after it."
          placeholder="Thanks for commenting! Here is the guide you asked for:"
        />
        <fieldset className="trigger-fieldset">
          <legend>When to send it</legend>
          <div className="form-grid">
            <SelectField
              label="Trigger"
              value={type}
              onChange={(event) => setType(event.target.value as Trigger['type'])}
            >
              <option value="comment">Someone comments on a post</option>
              <option value="message">Someone sends a direct message</option>
            </SelectField>
            <SelectField
              label="Match"
              value={mode}
              onChange={(event) => setMode(event.target.value as Trigger['match']['mode'])}
            >
              <option value="any">Contains any keyword</option>
              <option value="exact">Is exactly a keyword</option>
            </SelectField>
          </div>
          <TextField
            label="Keywords"
            value={keywords}
            onChange={(event) => setKeywords(event.target.value)}
            error={errors.keywords}
            placeholder="guide, link, info"
            hint={`Separate with commas, up to ${MAX_KEYWORDS} (${keywordList.length} now). Case does not matter. Leave empty to answer everyone.`}
          />
          {type === 'comment' ? (
            <TextField
              label="Only on this post (optional)"
              value={mediaId}
              inputMode="numeric"
              onChange={(event) => setMediaId(event.target.value)}
              error={errors.mediaId}
              placeholder="e.g. 18012345678901234"
              hint="The post’s media id, digits only. Leave empty for every post."
            />
          ) : null}
        </fieldset>
        <Toggle
          label="Enabled"
          checked={enabled}
          onChange={setEnabled}
          hint={
            enabled ? 'Sends DMs as soon as it is saved.' : 'Saved paused: it sends nothing until resumed.'
          }
        />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={busy}>
            {initial ? 'Save rule' : 'Create rule'}
          </Button>
          <Button variant="secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}

function hostOf(url: string): string {
  try {
    const { hostname, pathname } = new URL(url);
    const rest = pathname === '/' ? '' : pathname;
    const text = `${hostname.replace(/^www\./, '')}${rest}`;
    return text.length > 40 ? `${text.slice(0, 39)}…` : text;
  } catch {
    return url;
  }
}

/** The server's refusals, at the field they are about. */
function fieldErrorsOf(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  if (err.body.issues) {
    const out: Record<string, string> = {};
    for (const [key, message] of Object.entries(err.fieldErrors())) {
      out[key.startsWith('trigger') ? 'keywords' : key] = message;
    }
    return out;
  }
  switch (err.code) {
    case 'raw_link_in_dm_text':
      return {
        dmText: err.body.offending
          ? `Remove “${err.body.offending}”: links go in the link field, not the text`
          : 'Remove the link: links go in the link field, not the text',
      };
    case 'missing_dm_text':
      return { dmText: 'Write the message your followers get' };
    case 'unknown_account':
      return { accountId: 'Choose a connected Instagram account' };
    case 'unknown_link':
      return { linkId: 'Choose one of your links' };
    case 'bad_trigger':
      return /mediaId/.test(err.message)
        ? { mediaId: 'A post id is digits only, e.g. 18012345678901234' }
        : { keywords: err.message };
    default:
      return {};
  }
}

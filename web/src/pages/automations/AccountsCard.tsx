import { useState } from 'react';
import { del } from '../../api/client';
import type { SocialAccount, SocialMeta } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm';
import { Banner, Button, Card, formatDate, Loading } from '../../components/ui';
import type { Loaded } from '../../use-api';
import { StatusBadge } from '../audience/words';

/** The connected Instagram accounts: connect, reconnect, disconnect, and why connecting may be off. */
export function AccountsCard({
  meta,
  accounts,
  onNotice,
}: {
  meta: Loaded<SocialMeta>;
  accounts: Loaded<{ accounts: SocialAccount[] }>;
  onNotice: (notice: string) => void;
}) {
  const [toDisconnect, setToDisconnect] = useState<SocialAccount | null>(null);
  const accountList = accounts.data?.accounts ?? [];
  const authUrl = meta.data?.authUrl ?? null;

  return (
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
            <AccountItem
              key={account.id}
              account={account}
              authUrl={authUrl}
              onDisconnect={() => setToDisconnect(account)}
            />
          ))}
        </ul>
      ) : null}
      <ConfirmDialog
        open={toDisconnect !== null}
        title="Disconnect this account?"
        confirmLabel="Disconnect"
        onClose={() => setToDisconnect(null)}
        onConfirm={async () => {
          if (!toDisconnect) return;
          await del(`/social/accounts/${toDisconnect.id}`);
          await accounts.reload();
          onNotice(`@${toDisconnect.username} disconnected. Its rules stay here, paused.`);
        }}
      >
        <p>
          linkhop forgets the access to <strong>@{toDisconnect?.username}</strong> and its rules stop sending
          DMs. The rules and their history stay here and work again when you reconnect the account.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

function AccountItem({
  account,
  authUrl,
  onDisconnect,
}: {
  account: SocialAccount;
  authUrl: string | null;
  onDisconnect: () => void;
}) {
  return (
    <li className="account">
      <div className="account-avatar" aria-hidden="true">
        {account.username.slice(0, 1).toUpperCase()}
      </div>
      <div className="account-main">
        <div className="account-head">
          <strong>@{account.username}</strong>
          <StatusBadge status={account.status} />
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
            onClick={onDisconnect}
            aria-label={`Disconnect @${account.username}`}
          >
            Disconnect
          </Button>
        ) : null}
      </div>
    </li>
  );
}

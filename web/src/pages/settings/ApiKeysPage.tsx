import { useState } from 'react';
import { del, post } from '../../api/client';
import type { ApiKey } from '../../api/types';
import { ConfirmDialog, useWrite } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import { Banner, Card, EmptyState, Loading, PageHeader } from '../../components/ui';
import { can } from '../../roles';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { KeysTable, NewKeyForm, UsingAKey } from './KeyParts';
import { OnceSecret } from './OnceSecret';
import './settings.css';

interface MintedKey extends ApiKey {
  apiKey: string;
  note: string;
}

/** Live keys first, then newest first. */
function byStatusThenAge(a: ApiKey, b: ApiKey): number {
  return (
    Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || b.createdAt.localeCompare(a.createdAt)
  );
}

export function ApiKeysPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const allowed = session.features.api;
  const manages = can(session, 'keys:write');
  const keys = useApi<{ keys: ApiKey[] }>(manages ? '/keys' : null);
  const [minted, setMinted] = useState<MintedKey | null>(null);
  const [notice, setNotice] = useState<string>();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const creating = useWrite();

  const list = [...(keys.data?.keys ?? [])].sort(byStatusThenAge);

  const create = (input: { name: string; scopes: string[] }) =>
    creating.run(
      async () => {
        setNotice(undefined);
        setMinted(await post<MintedKey>('/keys', input));
        await keys.reload();
      },
      input.name.trim() ? {} : { name: 'Give the key a name, e.g. the tool that will use it' },
    );

  const revoke = async (key: ApiKey) => {
    await del(`/keys/${encodeURIComponent(key.id)}`);
    // A revoked key must not stay on screen as if it were usable.
    if (minted?.id === key.id) setMinted(null);
    await keys.reload();
    setNotice(`Key ${key.name} (${key.prefix}…) is revoked. Requests that use it now get 401.`);
  };

  return (
    <div className="settings-page">
      <PageHeader
        title="API keys"
        subtitle="Keys let your scripts and tools use the linkhop API on behalf of this workspace."
      />
      {allowed ? null : <UpgradeNotice feature="api" />}
      {manages ? null : (
        <Banner kind="info">
          Only owners and admins see and create API keys. Ask one of them for a key.
        </Banner>
      )}
      {notice ? <Banner kind="success">{notice}</Banner> : null}

      {minted ? (
        <OnceSecret
          title={`Your new API key “${minted.name}”`}
          warning={
            <>
              <strong>Copy this key now: it will not be shown again.</strong> linkhop keeps only a hash of it.
              If you lose it, revoke it and create another.
            </>
          }
          secret={minted.apiKey}
          testId="new-key"
          copyLabel="Copy key"
          onDone={() => setMinted(null)}
        />
      ) : null}

      {allowed && manages ? <NewKeyForm write={creating} onCreate={create} /> : null}

      {manages ? (
        <Card
          title="Keys"
          actions={<span className="count-pill">{list.filter((k) => !k.revokedAt).length} active</span>}
        >
          {keys.error ? <Banner>{keys.error}</Banner> : null}
          {!keys.data ? (
            keys.error ? null : (
              <Loading label="Loading keys" />
            )
          ) : list.length === 0 ? (
            <EmptyState title="No API keys yet">
              <p>
                {allowed ? 'Create a key to call the API from your own code.' : 'The API is part of Legend.'}
              </p>
            </EmptyState>
          ) : (
            <KeysTable keys={list} newId={minted?.id} onRevoke={setRevoking} />
          )}
        </Card>
      ) : null}

      <UsingAKey />

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          if (revoking) await revoke(revoking);
        }}
      >
        <p>
          Key <strong>{revoking?.name}</strong> (<code>{revoking?.prefix}…</code>) stops working on the very
          next request: anything still using it gets <strong>401 Unauthorized</strong>. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

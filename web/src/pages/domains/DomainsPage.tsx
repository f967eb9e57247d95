import { useState } from 'react';
import { ApiError, del, post } from '../../api/client';
import type { Domain } from '../../api/types';
import { ConfirmDialog, useWrite, WriteForm } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  CopyButton,
  EmptyState,
  formatDateTime,
  Loading,
  PageHeader,
  TextField,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import '../settings/settings.css';
import './domains.css';

/** The hostname's refusal (its Zod issue, or `domain_taken`) at the field; anything else in the banner. */
function hostnameErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const fields = err.fieldErrors();
  if (err.code === 'domain_taken') fields.hostname ??= err.message;
  return fields.hostname ? { hostname: fields.hostname } : {};
}

/**
 * Custom domains: a hostname is added unverified with a TXT record to publish at the DNS provider; Verify
 * looks it up, and only verified domains are offered to links.
 */
export function DomainsPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const allowed = session.features.customDomains;
  const domains = useApi<{ domains: Domain[] }>('/domains');
  const list = domains.data?.domains ?? [];
  const [hostname, setHostname] = useState('');
  const [notice, setNotice] = useState<string>();
  const [deleting, setDeleting] = useState<Domain | null>(null);
  const add = useWrite(hostnameErrors);

  const create = () =>
    add.run(
      async () => {
        const domain = await post<Domain>('/domains', { hostname: hostname.trim() });
        setHostname('');
        setNotice(`${domain.hostname} added. Publish its TXT record, then verify.`);
        await domains.reload();
      },
      hostname.trim() === '' ? { hostname: 'Enter a domain such as links.example.com' } : {},
    );

  const replace = (updated: Domain) =>
    domains.setData({ domains: list.map((item) => (item.id === updated.id ? updated : item)) });

  return (
    <div className="settings-page">
      <PageHeader
        title="Domains"
        subtitle="Put your links on a hostname of your own, such as links.yourbrand.com, once you prove it is yours."
      />
      {allowed ? null : <UpgradeNotice feature="customDomains" />}
      {notice ? <Banner kind="success">{notice}</Banner> : null}

      <Card title="Your domains">
        {domains.error ? <Banner>{domains.error}</Banner> : null}
        {!domains.data ? (
          domains.error ? null : (
            <Loading label="Loading domains" />
          )
        ) : list.length === 0 ? (
          <EmptyState title="No domains yet">
            <p>
              {allowed
                ? 'Add a hostname below. Point it at linkhop (a CNAME) and publish the TXT record we show you.'
                : 'With Hero or Legend, your links can live on your own domain.'}
            </p>
          </EmptyState>
        ) : (
          <ul className="hook-list">
            {list.map((domain) => (
              <DomainItem
                key={domain.id}
                domain={domain}
                canVerify={allowed}
                onVerified={(updated) => {
                  replace(updated);
                  setNotice(`${updated.hostname} is verified: links can use it now.`);
                }}
                onDelete={() => setDeleting(domain)}
              />
            ))}
          </ul>
        )}
      </Card>

      {allowed ? (
        <Card title="Add a domain">
          <WriteForm write={add} onSubmit={() => void create()} submitLabel="Add domain">
            <TextField
              label="Hostname"
              placeholder="links.example.com"
              autoComplete="off"
              spellCheck={false}
              value={hostname}
              onChange={(event) => setHostname(event.target.value)}
              error={add.errors.hostname}
              hint="A name you control at your DNS provider; not an IP address and no https:// or port."
              required
            />
          </WriteForm>
        </Card>
      ) : null}

      <ConfirmDialog
        open={deleting !== null}
        title="Remove this domain?"
        confirmLabel="Remove domain"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await del(`/domains/${encodeURIComponent(deleting.id)}`);
          setNotice(`${deleting.hostname} removed.`);
          await domains.reload();
        }}
      >
        <p>
          <code className="mono">{deleting?.hostname}</code> can no longer take links. A domain that links
          still use cannot be removed: move those links first.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function DomainItem({
  domain,
  canVerify,
  onVerified,
  onDelete,
}: {
  domain: Domain;
  canVerify: boolean;
  onVerified: (domain: Domain) => void;
  onDelete: () => void;
}) {
  const check = useWrite(() => ({}));
  const [found, setFound] = useState<string[] | null>(null);
  const verify = () =>
    check.run(async () => {
      setFound(null);
      try {
        onVerified(await post<Domain>(`/domains/${encodeURIComponent(domain.id)}/verify`));
      } catch (err) {
        if (err instanceof ApiError && err.code === 'domain_unverified') {
          const seen = (err.body as { found?: unknown }).found;
          setFound(Array.isArray(seen) ? seen.map(String) : []);
        }
        throw err;
      }
    });
  const { name, value } = domain.verification;
  return (
    <li className="hook domain" data-domain={domain.hostname}>
      <div>
        <div className="hook-url">
          <span>{domain.hostname}</span>
          {domain.verified ? <Badge tone="good">Verified</Badge> : <Badge tone="warn">Not verified</Badge>}
        </div>
        {domain.verified ? (
          <div className="hook-meta">
            <span>Verified {formatDateTime(domain.verifiedAt)}</span>
          </div>
        ) : (
          <div className="txt-record">
            <p>Add this TXT record at your DNS provider, then press Verify:</p>
            <dl>
              <dt>Type</dt>
              <dd>
                <code>TXT</code>
              </dd>
              <dt>Name</dt>
              <dd>
                <code data-testid="txt-name">{name}</code> <CopyButton text={name} label="Copy name" />
              </dd>
              <dt>Value</dt>
              <dd>
                <code data-testid="txt-value">{value}</code> <CopyButton text={value} label="Copy value" />
              </dd>
            </dl>
            {check.error ? (
              <Banner>
                {check.error}
                {found && found.length > 0 ? (
                  <>
                    {' '}
                    Found: <code>{found.join(', ')}</code>
                  </>
                ) : null}
              </Banner>
            ) : null}
          </div>
        )}
      </div>
      <div className="row-actions">
        {!domain.verified && canVerify ? (
          <Button
            variant="primary"
            className="btn-small"
            busy={check.busy}
            aria-label={`Verify ${domain.hostname}`}
            onClick={() => void verify()}
          >
            Verify
          </Button>
        ) : null}
        <Button
          variant="danger"
          className="btn-small"
          aria-label={`Remove ${domain.hostname}`}
          onClick={onDelete}
        >
          Remove
        </Button>
      </div>
    </li>
  );
}

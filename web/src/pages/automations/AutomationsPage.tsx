import { useEffect, useState } from 'react';
import type { Automation, Link, SocialAccount, SocialMeta } from '../../api/types';
import { UpgradeNotice } from '../../components/gate';
import { Banner, Button, Card, EmptyState, Loading, PageHeader } from '../../components/ui';
import { hashQuery } from '../../router';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { AccountsCard } from './AccountsCard';
import { RuleForm } from './RuleForm';
import { RuleItem } from './RuleItem';
import './automations.css';

export function AutomationsPage({ path }: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const canWrite = session.features.dmAutomations;
  const meta = useApi<SocialMeta>('/social/meta');
  const accounts = useApi<{ accounts: SocialAccount[] }>('/social');
  const rules = useApi<{ automations: Automation[] }>('/social/automations');
  const links = useApi<{ links: Link[] }>('/links?limit=200');
  const outcome = useConnectOutcome(path);
  const [editing, setEditing] = useState<Automation | 'new' | null>(null);
  const [notice, setNotice] = useState<string>();

  const accountList = accounts.data?.accounts ?? [];
  const ruleList = rules.data?.automations ?? [];
  const usable = accountList.filter((account) => account.status !== 'revoked');

  const replaceRule = (rule: Automation) => {
    const exists = ruleList.some((item) => item.id === rule.id);
    rules.setData({
      automations: exists ? ruleList.map((item) => (item.id === rule.id ? rule : item)) : [...ruleList, rule],
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

      <AccountsCard meta={meta} accounts={accounts} onNotice={setNotice} />

      {editing !== null && canWrite ? (
        <RuleForm
          key={editing === 'new' ? 'new' : editing.id}
          initial={editing === 'new' ? null : editing}
          accounts={accountList}
          links={links.data?.links ?? []}
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
                  link={links.data?.links.find((link) => link.id === rule.linkId)}
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
    </>
  );
}

/**
 * The outcome of the Instagram connect round-trip, which arrives once in the hash query
 * (`?connected=name` or `?connect_error=…`); the address is then tidied so a reload does not repeat it.
 */
function useConnectOutcome(path: string): { connected: string | null; error: string | null } {
  const [outcome] = useState(() => {
    const query = hashQuery(path);
    return { connected: query.get('connected'), error: query.get('connect_error') };
  });
  useEffect(() => {
    if (outcome.connected !== null || outcome.error !== null) {
      window.history.replaceState(null, '', '#/automations');
    }
  }, [outcome]);
  return outcome;
}

import { useState } from 'react';
import { ApiError, patch, post } from '../../api/client';
import type { Automation, Link, SocialAccount } from '../../api/types';
import { useWrite, WriteForm } from '../../components/confirm';
import { Card, SelectField, TextArea, Toggle } from '../../components/ui';
import { STATUS_WORDS } from '../audience/words';
import { draftOf, keywordsOf, MAX_KEYWORDS, TriggerFields, triggerOf } from './TriggerFields';

/** Creates a rule or edits one: which account, which link, the DM text, and when it is sent. */
export function RuleForm({
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
  // A disconnected account cannot take new rules, but the rule being edited keeps showing its own.
  const selectable = accounts.filter(
    (account) => account.status !== 'revoked' || account.id === initial?.accountId,
  );
  const [accountId, setAccountId] = useState(initial?.accountId ?? selectable[0]?.id ?? '');
  const [linkId, setLinkId] = useState(initial?.linkId ?? '');
  const [dmText, setDmText] = useState(initial?.dmText ?? '');
  const [trigger, setTrigger] = useState(() => draftOf(initial?.trigger));
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const submit = useWrite(ruleFieldErrors);
  const { errors } = submit;

  const keywordCount = keywordsOf(trigger).length;

  const missing: Record<string, string> = {};
  if (!accountId) missing.accountId = 'Choose the Instagram account';
  if (!linkId) missing.linkId = 'Choose the link the DM carries';
  if (!dmText.trim()) missing.dmText = 'Write the message your followers get';
  if (keywordCount > MAX_KEYWORDS) missing.keywords = `At most ${MAX_KEYWORDS} keywords`;

  const save = () =>
    submit.run(async () => {
      const body = { accountId, linkId, dmText, enabled, trigger: triggerOf(trigger) };
      const saved = initial
        ? await patch<Automation>(`/social/automations/${initial.id}`, body)
        : await post<Automation>('/social/automations', body);
      onSaved(saved, initial === null);
    }, missing);

  return (
    <Card title={initial ? 'Edit rule' : 'New rule'} className="rule-form">
      <WriteForm
        write={submit}
        onSubmit={() => void save()}
        submitLabel={initial ? 'Save rule' : 'Create rule'}
        onCancel={onCancel}
      >
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
          <LinkSelect
            links={links}
            loading={linksLoading}
            value={linkId}
            onChange={setLinkId}
            error={errors.linkId}
          />
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
        <TriggerFields draft={trigger} onChange={setTrigger} keywordCount={keywordCount} errors={errors} />
        <Toggle
          label="Enabled"
          checked={enabled}
          onChange={setEnabled}
          hint={
            enabled ? 'Sends DMs as soon as it is saved.' : 'Saved paused: it sends nothing until resumed.'
          }
        />
      </WriteForm>
    </Card>
  );
}

function LinkSelect({
  links,
  loading,
  value,
  onChange,
  error,
}: {
  links: Link[];
  loading: boolean;
  value: string;
  onChange: (linkId: string) => void;
  error: string | undefined;
}) {
  return (
    <SelectField
      label="Link in the DM"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      error={error}
      hint={
        links.length === 0 && !loading ? (
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
  );
}

/** `example.com/guide`: enough of the destination to tell links apart in the picker. */
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
function ruleFieldErrors(err: unknown): Record<string, string> {
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

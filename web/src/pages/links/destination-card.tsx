import type { Domain } from '../../api/types';
import { UpgradeLabel } from '../../components/gate';
import { Card, SelectField, TextField } from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import type { EditorCardProps } from './form';
import { FallbackField } from './health';
import { UrlField } from './inputs';

/** Where the link goes and what it is called: the destination, the slug and the custom domain. */
export function DestinationCard({ form, update, errors, creating }: EditorCardProps & { creating: boolean }) {
  const { features } = useAuthed();
  // Changing where a live link goes is a paid power; a new link always picks its destination.
  const destinationLocked = !creating && !features.editDestination;
  return (
    <Card title="Destination">
      <UrlField
        label="Destination URL"
        placeholder="https://www.youtube.com/watch?v=…"
        value={form.url}
        error={errors.of('url')}
        hint="Where the link goes. YouTube, Spotify, Amazon and dozens more open in their app."
        onChange={(event) => update({ url: event.target.value })}
        disabled={destinationLocked}
        required
      />
      {destinationLocked ? <UpgradeLabel feature="editDestination" /> : null}
      <FallbackField form={form} update={update} errors={errors} />
      <div className="form-grid">
        {features.customSlugs ? (
          <TextField
            label="Custom slug"
            value={form.slug}
            error={errors.of('slug')}
            placeholder={creating ? 'spring-launch' : undefined}
            hint={
              creating
                ? 'Letters, digits, - and _, up to 32. Blank: a 7-character slug is generated.'
                : 'Changing it retires the old short URL.'
            }
            onChange={(event) => update({ slug: event.target.value })}
          />
        ) : (
          <div className="field">
            <span className="label">Slug</span>
            <p className="hint">
              {creating ? 'A 7-character slug is generated for you.' : <code>{form.slug}</code>}
            </p>
            <UpgradeLabel feature="customSlugs" />
          </div>
        )}
        <DomainField
          value={form.hostname}
          error={errors.of('hostname')}
          onChange={(hostname) => update({ hostname })}
        />
      </div>
    </Card>
  );
}

/**
 * The link's hostname: the default address or one of the organization's verified domains (the server
 * refuses any other with `unknown_domain`). A hostname the link already has stays on offer, verified or not.
 */
function DomainField({
  value,
  error,
  onChange,
}: {
  value: string;
  error: string | undefined;
  onChange: (hostname: string) => void;
}) {
  const { features } = useAuthed();
  const domains = useApi<{ domains: Domain[] }>('/domains');
  const verified = (domains.data?.domains ?? []).filter((domain) => domain.verified).map((d) => d.hostname);
  const options = value && !verified.includes(value) ? [value, ...verified] : verified;
  if (!features.customDomains && value === '') {
    return (
      <div className="field">
        <span className="label">Domain</span>
        <p className="hint">Links use the default linkhop address.</p>
        <UpgradeLabel feature="customDomains" />
      </div>
    );
  }
  return (
    <SelectField
      label="Domain"
      value={value}
      error={error}
      hint={
        options.length === 0 ? (
          <>
            No verified domain yet: <a href="#/domains">add one under Domains</a>.
          </>
        ) : (
          'Only verified domains are offered; add more under Domains.'
        )
      }
      onChange={(event) => onChange(event.target.value)}
    >
      <option value="">Default linkhop address</option>
      {options.map((hostname) => (
        <option key={hostname} value={hostname}>
          {hostname}
        </option>
      ))}
    </SelectField>
  );
}

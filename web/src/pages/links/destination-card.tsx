import { UpgradeNotice } from '../../components/gate';
import { Card, TextField } from '../../components/ui';
import { useAuthed } from '../../session';
import type { EditorCardProps } from './form';
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
      {destinationLocked ? <UpgradeNotice feature="editDestination" compact /> : null}
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
            <UpgradeNotice feature="customSlugs" compact />
          </div>
        )}
        <TextField
          label="Custom domain"
          value={form.hostname}
          error={errors.of('hostname')}
          placeholder="links.example.com"
          hint="Blank uses the default linkhop address."
          onChange={(event) => update({ hostname: event.target.value })}
        />
      </div>
    </Card>
  );
}

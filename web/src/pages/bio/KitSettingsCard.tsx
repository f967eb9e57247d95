import type { MediaKitSettings } from '../../api/types';
import { UpgradeNotice } from '../../components/gate';
import { Badge, Banner, Card, Toggle } from '../../components/ui';
import { type Note, NoteBanner, SaveBar, SectionTitle } from './parts';

/** Publishing and the sections brands may see; everything starts off (default-deny). */

type Section = keyof MediaKitSettings['show'];

const SECTIONS: { key: Section; label: string; hint: string }[] = [
  { key: 'taps', label: 'Total clicks', hint: 'Every click on your links in the window' },
  {
    key: 'appOpenRate',
    label: 'App-open rate',
    hint: 'How often a tap opens the app instead of an in-app browser; also unlocks the share card',
  },
  { key: 'platforms', label: 'Platforms', hint: 'Which apps your taps go to: YouTube, Spotify, shops…' },
  { key: 'topLinks', label: 'Top links', hint: 'Your most-tapped bio page links, with their labels' },
  { key: 'trend', label: 'Daily trend', hint: 'Taps per day as a sparkline' },
];

export function KitSettingsCard({
  saved,
  draft,
  onDraftChange,
  dirty,
  canEdit,
  handle,
  windowDays,
  bioPublished,
  note,
  busy,
  onSave,
}: {
  saved: MediaKitSettings;
  draft: MediaKitSettings;
  onDraftChange: (draft: MediaKitSettings) => void;
  dirty: boolean;
  /** The plan includes the media kit; without it the switches are shown but locked. */
  canEdit: boolean;
  handle: string;
  windowDays: number;
  bioPublished: boolean | undefined;
  note: Note;
  busy: boolean;
  onSave: () => void;
}) {
  return (
    <Card
      title={
        <SectionTitle text="Settings" dirty={dirty}>
          {saved.published ? <Badge tone="good">Public</Badge> : <Badge>Private</Badge>}
        </SectionTitle>
      }
    >
      {canEdit ? null : <UpgradeNotice feature="mediaKit" />}
      <NoteBanner note={note} />
      {saved.published && bioPublished === false ? (
        <Banner kind="warning">
          Your bio page is a draft, so the media kit stays offline too. <a href="#/bio">Publish it</a>.
        </Banner>
      ) : null}
      <Toggle
        label="Publish the media kit"
        checked={draft.published}
        disabled={!canEdit}
        onChange={(published) => onDraftChange({ ...draft, published })}
        hint={`Anyone with the link can see /@${handle}/media-kit`}
      />
      <fieldset className="kit-sections">
        <legend>Sections to share</legend>
        <p className="hint kit-sections-hint">
          Everything is off until you switch it on. A section with no data yet stays hidden.
        </p>
        {SECTIONS.map((section) => (
          <Toggle
            key={section.key}
            label={section.label}
            hint={
              section.key === 'taps'
                ? `Every click on your links in the last ${windowDays} days`
                : section.hint
            }
            checked={draft.show[section.key]}
            disabled={!canEdit}
            onChange={(on) => onDraftChange({ ...draft, show: { ...draft.show, [section.key]: on } })}
          />
        ))}
      </fieldset>
      {canEdit ? (
        <SaveBar
          label="Save settings"
          busy={busy}
          dirty={dirty}
          onSave={onSave}
          onDiscard={() => onDraftChange(saved)}
        />
      ) : null}
    </Card>
  );
}

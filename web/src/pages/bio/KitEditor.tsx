import { useState } from 'react';
import { del, put } from '../../api/client';
import type { DashboardKit, MediaKitSettings, PublicKit } from '../../api/types';
import { PageHeader } from '../../components/ui';
import { useAuthed } from '../../session';
import { KitPreview } from './KitPreview';
import { KitSettingsCard } from './KitSettingsCard';
import { type CardState, KitShareCard, kitPagePath } from './KitShareCard';
import { DangerZone, NewTabLink, useSave } from './parts';

/**
 * The media kit of a page that exists: the settings draft, what the kit shares, clearing it, and the
 * server's own preview of the public payload (drawn from the saved settings, not the draft).
 */

const OFF: MediaKitSettings = {
  published: false,
  show: { taps: false, appOpenRate: false, platforms: false, topLinks: false, trend: false },
};

const sameSettings = (a: MediaKitSettings, b: MediaKitSettings) => JSON.stringify(a) === JSON.stringify(b);

/** The card answers 409 no_data until taps are measured: the image's error says so. */
function cardStateOf(
  saved: MediaKitSettings,
  bioPublished: boolean | undefined,
  cardFailed: boolean,
): CardState {
  if (!saved.published || !saved.show.appOpenRate) return 'hidden';
  if (cardFailed) return 'no-data';
  return bioPublished !== false ? 'shown' : 'hidden';
}

export function KitEditor({
  data,
  preview,
  bioPublished,
  onSaved,
  onCleared,
}: {
  data: DashboardKit;
  preview: PublicKit;
  bioPublished: boolean | undefined;
  onSaved: (next: DashboardKit) => void;
  onCleared: () => void;
}) {
  const session = useAuthed();
  const saved = data.kit ?? OFF;
  const [draft, setDraft] = useState<MediaKitSettings>(saved);
  const [cardFailed, setCardFailed] = useState(false);
  const request = useSave();

  const handle = preview.handle;
  const origin = window.location.origin;
  const live = saved.published && bioPublished !== false;

  const save = () =>
    void request.run(async () => {
      const next = await put<DashboardKit>('/media-kit', draft);
      onSaved(next);
      setDraft(next.kit ?? OFF);
      setCardFailed(false);
      return next.kit?.published ? 'Saved. Your media kit is public.' : 'Saved. Your media kit is private.';
    });

  const cleared = () => {
    setDraft(OFF);
    request.announce('Media kit cleared. Nothing is shared any more.');
    onCleared();
  };

  return (
    <>
      <PageHeader
        title="Media kit"
        subtitle="Show brands how your audience really taps: numbers straight from linkhop, never typed in."
        actions={
          live ? (
            <NewTabLink className="btn btn-secondary" href={kitPagePath(handle)} label="View public kit" />
          ) : null
        }
      />
      <div className="kit-layout">
        <div className="kit-settings">
          <KitSettingsCard
            saved={saved}
            draft={draft}
            onDraftChange={setDraft}
            dirty={!sameSettings(draft, saved)}
            canEdit={session.features.mediaKit}
            handle={handle}
            windowDays={preview.window}
            bioPublished={bioPublished}
            note={request.note}
            busy={request.busy}
            onSave={save}
          />
          <KitShareCard
            handle={handle}
            origin={origin}
            live={live}
            bioPublished={bioPublished}
            cardState={cardStateOf(saved, bioPublished, cardFailed)}
            onCardFailed={() => setCardFailed(true)}
          />
          {data.kit ? <ClearKitCard handle={handle} onCleared={cleared} /> : null}
        </div>

        <aside className="kit-preview-col" aria-label="Preview">
          <div className="preview-sticky">
            <div className="preview-head">
              <span className="preview-label">What brands see</span>
              <span className="hint">With your saved settings</span>
            </div>
            <KitPreview kit={preview} branded={!session.features.removeBranding} origin={origin} />
          </div>
        </aside>
      </div>
    </>
  );
}

/** Clearing unpublishes the kit and switches every section off; the bio page stays. */
function ClearKitCard({ handle, onCleared }: { handle: string; onCleared: () => void }) {
  return (
    <DangerZone
      id="kit-clear-title"
      title="Clear media kit"
      description="Unpublishes it and switches every section off. Your bio page stays."
      buttonLabel="Clear kit"
      confirmTitle="Clear the media kit?"
      confirmLabel="Clear media kit"
      onConfirm={() => del('/media-kit')}
      onDone={onCleared}
    >
      <p>
        <strong>/@{handle}/media-kit</strong> and its share card go offline, and every section is switched
        off. Your bio page, links and analytics are not touched.
      </p>
    </DangerZone>
  );
}

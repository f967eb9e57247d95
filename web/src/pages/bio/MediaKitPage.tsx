import { useState } from 'react';
import { del, messageOf, put } from '../../api/client';
import type { BioPage, DashboardKit, MediaKitSettings, PublicKit } from '../../api/types';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  CopyButton,
  EmptyState,
  formatDate,
  formatNumber,
  formatRate,
  Loading,
  Modal,
  PageHeader,
  Toggle,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { BrandFooter, PhoneFrame, PreviewHeader } from './PhonePreview';
import './bio.css';

/**
 * #/media-kit: what brands may see of the numbers (hosted-service.md 2 "Media kit", 3 and 4.3). Settings
 * are default-deny and need Hero; the preview is the public payload the server built, never a guess.
 */

type Section = keyof MediaKitSettings['show'];

const SECTIONS: { key: Section; label: string; hint: string }[] = [
  { key: 'taps', label: 'Total taps', hint: 'Every tap on your links in the window' },
  {
    key: 'appOpenRate',
    label: 'App-open rate',
    hint: 'How often a tap opens the app instead of an in-app browser; also unlocks the share card',
  },
  { key: 'platforms', label: 'Platforms', hint: 'Which apps your taps go to: YouTube, Spotify, shops…' },
  { key: 'topLinks', label: 'Top links', hint: 'Your most-tapped bio page links, with their labels' },
  { key: 'trend', label: 'Daily trend', hint: 'Taps per day as a sparkline' },
];

const OFF: MediaKitSettings = {
  published: false,
  show: { taps: false, appOpenRate: false, platforms: false, topLinks: false, trend: false },
};

const same = (a: MediaKitSettings, b: MediaKitSettings) => JSON.stringify(a) === JSON.stringify(b);

export function MediaKitPage(_props: { params: Record<string, string>; path: string }) {
  const kit = useApi<DashboardKit>('/media-kit');
  const bio = useApi<{ page: BioPage | null }>('/bio');

  if (!kit.data && kit.loading) return <Loading label="Loading your media kit" />;
  if (!kit.data) {
    return (
      <>
        <PageHeader title="Media kit" />
        <Banner>{kit.error ?? 'The media kit could not be loaded.'}</Banner>
        <Button onClick={() => void kit.reload()}>Try again</Button>
      </>
    );
  }
  if (kit.data.needsBioPage || !kit.data.preview) {
    return (
      <>
        <PageHeader title="Media kit" subtitle="Your real numbers, ready to share with brands." />
        <Card>
          <EmptyState title="Create your bio page first">
            <p>
              The media kit lives on your bio page at <span className="mono">/@handle/media-kit</span> and
              uses its name, avatar and theme. Claim a handle and it is ready to switch on.
            </p>
            <a className="btn btn-primary" href="#/bio">
              Set up your bio page
            </a>
          </EmptyState>
        </Card>
      </>
    );
  }
  return (
    <KitEditor
      data={kit.data}
      preview={kit.data.preview}
      bioPublished={bio.data?.page?.published}
      onSaved={(next) => kit.setData(next)}
      onCleared={() => void kit.reload()}
    />
  );
}

function KitEditor({
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
  const canEdit = session.features.mediaKit;
  const saved = data.kit ?? OFF;
  const [draft, setDraft] = useState<MediaKitSettings>(saved);
  const [busy, setBusy] = useState<'save' | 'clear' | null>(null);
  const [note, setNote] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const [confirmClear, setConfirmClear] = useState(false);
  const [clearError, setClearError] = useState<string>();
  const [cardFailed, setCardFailed] = useState(false);

  const dirty = !same(draft, saved);
  const handle = preview.handle;
  const origin = window.location.origin;
  const pageUrl = `${origin}/@${handle}/media-kit`;
  const cardPath = `/api/public/media-kit/${encodeURIComponent(handle)}/card.svg`;
  const live = saved.published && bioPublished !== false;
  const showCard = saved.published && saved.show.appOpenRate && bioPublished !== false && !cardFailed;

  const save = async () => {
    setBusy('save');
    setNote(null);
    try {
      const next = await put<DashboardKit>('/media-kit', draft);
      onSaved(next);
      setDraft(next.kit ?? OFF);
      setCardFailed(false);
      setNote({
        kind: 'success',
        text: next.kit?.published ? 'Saved. Your media kit is public.' : 'Saved. Your media kit is private.',
      });
    } catch (error) {
      setNote({ kind: 'error', text: messageOf(error) });
    } finally {
      setBusy(null);
    }
  };

  const clear = async () => {
    setBusy('clear');
    setClearError(undefined);
    try {
      await del('/media-kit');
      setConfirmClear(false);
      setDraft(OFF);
      setNote({ kind: 'success', text: 'Media kit cleared. Nothing is shared any more.' });
      onCleared();
    } catch (error) {
      setClearError(messageOf(error));
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <PageHeader
        title="Media kit"
        subtitle="Show brands how your audience really taps: numbers straight from linkhop, never typed in."
        actions={
          live ? (
            <a className="btn btn-secondary" href={`/@${handle}/media-kit`} target="_blank" rel="noopener">
              View public kit <span aria-hidden="true">↗</span>
            </a>
          ) : null
        }
      />
      <div className="kit-layout">
        <div className="kit-settings">
          <Card
            title={
              <span className="section-title">
                Settings
                {saved.published ? <Badge tone="good">Public</Badge> : <Badge>Private</Badge>}
                {dirty ? <Badge tone="warn">Unsaved</Badge> : null}
              </span>
            }
          >
            {canEdit ? null : <UpgradeNotice feature="mediaKit" />}
            {note ? <Banner kind={note.kind}>{note.text}</Banner> : null}
            {saved.published && bioPublished === false ? (
              <Banner kind="warning">
                Your bio page is a draft, so the media kit stays offline too. <a href="#/bio">Publish it</a>.
              </Banner>
            ) : null}
            <Toggle
              label="Publish the media kit"
              checked={draft.published}
              disabled={!canEdit}
              onChange={(published) => setDraft({ ...draft, published })}
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
                      ? `Every tap on your links in the last ${preview.window} days`
                      : section.hint
                  }
                  checked={draft.show[section.key]}
                  disabled={!canEdit}
                  onChange={(on) => setDraft({ ...draft, show: { ...draft.show, [section.key]: on } })}
                />
              ))}
            </fieldset>
            {canEdit ? (
              <div className="form-actions">
                <Button
                  variant="primary"
                  busy={busy === 'save'}
                  disabled={!dirty}
                  onClick={() => void save()}
                >
                  Save settings
                </Button>
                {dirty ? (
                  <Button variant="ghost" onClick={() => setDraft(saved)}>
                    Discard
                  </Button>
                ) : null}
              </div>
            ) : null}
          </Card>

          <Card title="Share">
            <dl className="share-list">
              <div>
                <dt>Public page</dt>
                <dd>
                  <span className="mono truncate-any">{pageUrl.replace(/^https?:\/\//, '')}</span>
                  <span className="share-actions">
                    <CopyButton text={pageUrl} label="Copy" />
                    {live ? (
                      <a
                        className="btn btn-ghost btn-small"
                        href={`/@${handle}/media-kit`}
                        target="_blank"
                        rel="noopener"
                      >
                        Open <span aria-hidden="true">↗</span>
                      </a>
                    ) : null}
                  </span>
                </dd>
              </div>
              <div>
                <dt>Share card (1200×630)</dt>
                <dd>
                  <span className="mono truncate-any">
                    {`${origin}${cardPath}`.replace(/^https?:\/\//, '')}
                  </span>
                  <span className="share-actions">
                    <CopyButton text={`${origin}${cardPath}`} label="Copy" />
                  </span>
                </dd>
              </div>
            </dl>
            {!live ? (
              <p className="hint">
                These addresses answer once the kit {bioPublished === false ? 'and your bio page are' : 'is'}{' '}
                published.
              </p>
            ) : null}
            {showCard ? (
              <figure className="kit-card-img">
                <img
                  src={cardPath}
                  alt={`App-open rate card for @${handle}`}
                  width={1200}
                  height={630}
                  onError={() => setCardFailed(true)}
                />
                <figcaption className="hint">The card link previews show when you share your kit.</figcaption>
              </figure>
            ) : saved.published && saved.show.appOpenRate && cardFailed ? (
              <p className="hint">The share card appears once taps have been measured.</p>
            ) : null}
          </Card>

          {data.kit ? (
            <section className="card danger-card" aria-labelledby="kit-clear-title">
              <div>
                <h2 id="kit-clear-title">Clear media kit</h2>
                <p className="muted">Unpublishes it and switches every section off. Your bio page stays.</p>
              </div>
              <Button variant="danger" onClick={() => setConfirmClear(true)}>
                Clear kit
              </Button>
            </section>
          ) : null}
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

      <Modal open={confirmClear} title="Clear the media kit?" onClose={() => setConfirmClear(false)}>
        <p>
          <strong>/@{handle}/media-kit</strong> and its share card go offline, and every section is switched
          off. Your bio page, links and analytics are not touched.
        </p>
        {clearError ? <Banner>{clearError}</Banner> : null}
        <div className="form-actions modal-actions">
          <Button onClick={() => setConfirmClear(false)}>Cancel</Button>
          <Button variant="danger" busy={busy === 'clear'} onClick={() => void clear()}>
            Clear media kit
          </Button>
        </div>
      </Modal>
    </>
  );
}

/** The public payload drawn like /@handle/media-kit: only the sections the server sent. */
function KitPreview({ kit, branded, origin }: { kit: PublicKit; branded: boolean; origin: string }) {
  const tiles: { value: string; label: string }[] = [];
  if (kit.taps !== undefined) tiles.push({ value: formatNumber(kit.taps), label: 'taps' });
  if (kit.appOpen?.rate != null) {
    tiles.push({ value: formatRate(kit.appOpen.rate), label: 'app-open rate' });
    tiles.push({ value: formatNumber(kit.appOpen.opened), label: 'app opens' });
  }
  return (
    <PhoneFrame
      theme={kit.theme}
      label="Preview of your public media kit"
      address={`${origin.replace(/^https?:\/\//, '')}/@${kit.handle}/media-kit`}
    >
      <div className="pv-main" data-testid="kit-preview">
        <PreviewHeader
          title={kit.title}
          handle={kit.handle}
          bio={kit.bio}
          avatarUrl={kit.avatarUrl}
          suffix="media kit"
        />
        {kit.empty ? (
          <div className="pv-kit-empty">
            <p className="pv-kit-empty-title">Nothing to show yet</p>
            <p>
              {kit.configured
                ? 'Switch sections on, and numbers appear as soon as there are taps to report.'
                : 'Analytics is not connected on this server, so there are no numbers to share.'}
            </p>
          </div>
        ) : (
          <>
            {tiles.length > 0 ? (
              <div className="pv-grid">
                {tiles.map((tile) => (
                  <div className="pv-tile" key={tile.label}>
                    <b>{tile.value}</b>
                    <span>{tile.label}</span>
                  </div>
                ))}
              </div>
            ) : null}
            {kit.platforms ? (
              <PreviewBars
                title="Platforms"
                rows={kit.platforms.map((p) => ({ label: p.platform, clicks: p.clicks }))}
              />
            ) : null}
            {kit.topLinks ? <PreviewBars title="Top links" rows={kit.topLinks} /> : null}
            {kit.trend ? (
              <section className="pv-sec">
                <p className="pv-h2 pv-left">Daily taps</p>
                <Sparkline points={kit.trend} />
              </section>
            ) : null}
          </>
        )}
        <p className="pv-note">
          Last {kit.window} days. Sampled estimates, meant as trends. Updated {formatDate(kit.updatedAt)}.
        </p>
        <BrandFooter branded={branded} />
      </div>
    </PhoneFrame>
  );
}

function PreviewBars({ title, rows }: { title: string; rows: { label: string; clicks: number }[] }) {
  const max = Math.max(1, ...rows.map((r) => r.clicks));
  return (
    <section className="pv-sec">
      <p className="pv-h2 pv-left">{title}</p>
      {rows.map((row) => (
        <div key={row.label} className="pv-barrow">
          <div className="pv-row">
            <span>{row.label}</span>
            <span>{formatNumber(row.clicks)}</span>
          </div>
          <svg className="pv-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
            <rect className="t" width="100" height="6" rx="3" />
            <rect className="f" width={Math.max(2, Math.round((row.clicks / max) * 100))} height="6" rx="3" />
          </svg>
        </div>
      ))}
    </section>
  );
}

function Sparkline({ points }: { points: { day: string; clicks: number }[] }) {
  const max = Math.max(1, ...points.map((p) => p.clicks));
  const step = points.length > 1 ? 300 / (points.length - 1) : 0;
  const coords = points
    .map((p, i) => `${(i * step).toFixed(1)},${(76 - (p.clicks / max) * 72).toFixed(1)}`)
    .join(' ');
  return (
    <svg
      className="pv-spark"
      viewBox="0 0 300 80"
      preserveAspectRatio="none"
      role="img"
      aria-label="Daily taps"
    >
      <polyline
        points={coords}
        fill="none"
        strokeWidth="2.5"
        strokeLinejoin="round"
        vectorEffect="non-scaling-stroke"
      />
    </svg>
  );
}

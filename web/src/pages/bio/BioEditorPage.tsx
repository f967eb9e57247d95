import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { ApiError, del, messageOf, put } from '../../api/client';
import type { BioPage, BioStats, Block, Link, Theme } from '../../api/types';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  CopyButton,
  Loading,
  Modal,
  PageHeader,
  TextArea,
  TextField,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { BlocksEditor } from './BlocksEditor';
import { blocksForSave, errorsByBlock, sameBlocks } from './model';
import { BioPreview } from './PhonePreview';
import { ThemeEditor } from './ThemeEditor';
import './bio.css';

/**
 * #/bio: claim a handle, then edit the public page /@handle: profile, theme, the ordered blocks, and
 * publishing, with a phone preview drawn from the unsaved state. Spec: hosted-service.md 2, 3 and 4.2.
 */

type Envelope = { page: BioPage | null };
type Note = { kind: 'success' | 'error' | 'info'; text: string } | null;

const origin = () => window.location.origin;
const publicUrl = (handle: string) => `${origin()}/@${handle}`;

export function BioEditorPage(_props: { params: Record<string, string>; path: string }) {
  const bio = useApi<Envelope>('/bio');
  const links = useApi<{ links: Link[] }>('/links?limit=200');

  if (!bio.data && bio.loading) return <Loading label="Loading your bio page" />;
  if (!bio.data) {
    return (
      <>
        <PageHeader title="Bio page" />
        <Banner>{bio.error ?? 'The bio page could not be loaded.'}</Banner>
        <Button onClick={() => void bio.reload()}>Try again</Button>
      </>
    );
  }
  const page = bio.data.page;
  if (!page) return <ClaimHandle onClaimed={(saved) => bio.setData({ page: saved })} />;
  return (
    <BioEditor
      key={page.id}
      initial={page}
      links={links.data?.links ?? []}
      linksLoading={links.loading && !links.data}
      linksError={links.data ? undefined : links.error}
      onDeleted={() => bio.setData({ page: null })}
    />
  );
}

/** The friendly first step: a handle (and a display name), with a preview of what it becomes. */
function ClaimHandle({ onClaimed }: { onClaimed: (page: BioPage) => void }) {
  const session = useAuthed();
  const [handle, setHandle] = useState('');
  const [title, setTitle] = useState(session.org.name);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const shown = handle.trim().toLowerCase() || 'yourname';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setFailure(undefined);
    try {
      onClaimed(await put<BioPage>('/bio', { handle: handle.trim(), title: title.trim() || undefined }));
    } catch (error) {
      const found = fieldErrorsOf(error);
      if (found) setErrors(found);
      else setFailure(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader
        title="Bio page"
        subtitle="One link for your profile that opens every app: YouTube, Spotify, shops, all of it."
      />
      <div className="claim">
        <section className="card claim-card" aria-labelledby="claim-title">
          <p className="eyebrow">Step 1 of 2</p>
          <h2 id="claim-title" className="claim-title">
            Claim your handle
          </h2>
          <p className="muted claim-lede">
            Your page lives at <strong className="mono">/@handle</strong> on linkhop. It starts as a private
            draft: publish it when it looks right.
          </p>
          {failure ? <Banner>{failure}</Banner> : null}
          <form onSubmit={submit} noValidate>
            <TextField
              label="Handle"
              value={handle}
              onChange={(event) => setHandle(event.target.value)}
              error={errors.handle}
              hint={
                <>
                  <span className="mono url-hint">
                    {origin().replace(/^https?:\/\//, '')}/@{shown}
                  </span>{' '}
                  · 3 to 30 of a–z, 0–9, dot and underscore
                </>
              }
              placeholder="yourname"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              maxLength={30}
              required
            />
            <TextField
              label="Display name"
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              error={errors.title}
              maxLength={100}
              hint="Shown in large type at the top of your page"
            />
            <div className="form-actions">
              <Button type="submit" variant="primary" className="btn-large" busy={busy}>
                Claim handle
              </Button>
            </div>
          </form>
        </section>
        <div className="claim-preview" aria-hidden="true">
          <BioPreview
            page={{ handle: shown, title: title || shown, bio: null, avatarUrl: null }}
            theme={null}
            blocks={SAMPLE_BLOCKS}
            links={new Map()}
            branded={false}
            origin={origin()}
            demo
          />
        </div>
      </div>
    </>
  );
}

const SAMPLE_BLOCKS: Block[] = [
  { t: 'header', id: 's1', text: 'New this week' },
  { t: 'link', id: 's2', linkId: '', label: 'Watch the new video', note: 'Opens in the YouTube app' },
  { t: 'link', id: 's3', linkId: '', label: 'Listen on Spotify' },
  { t: 'text', id: 's4', text: 'Thanks for being here!' },
];

function fieldErrorsOf(error: unknown): Record<string, string> | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'handle_taken') {
    return { handle: 'That handle is already taken. Try another one.' };
  }
  const fields = error.fieldErrors();
  if (error.code === 'invalid_handle' && !fields.handle) return { handle: error.message };
  return Object.keys(fields).length > 0 ? fields : null;
}

interface Profile {
  handle: string;
  title: string;
  bio: string;
  avatarUrl: string;
}

const profileOf = (page: BioPage): Profile => ({
  handle: page.handle,
  title: page.title,
  bio: page.bio ?? '',
  avatarUrl: page.avatarUrl ?? '',
});

const sameTheme = (a: Theme | null, b: Theme | null) => JSON.stringify(a) === JSON.stringify(b);

function BioEditor({
  initial,
  links,
  linksLoading,
  linksError,
  onDeleted,
}: {
  initial: BioPage;
  links: Link[];
  linksLoading: boolean;
  linksError: string | undefined;
  onDeleted: () => void;
}) {
  const session = useAuthed();
  const canTheme = session.features.bioCustomTheme;
  const [saved, setSaved] = useState(initial);
  const [profile, setProfile] = useState(() => profileOf(initial));
  const [theme, setTheme] = useState<Theme | null>(initial.theme);
  const [blocks, setBlocks] = useState<Block[]>(initial.blocks);

  const [profileErrors, setProfileErrors] = useState<Record<string, string>>({});
  const [profileNote, setProfileNote] = useState<Note>(null);
  const [themeErrors, setThemeErrors] = useState<Record<string, string>>({});
  const [themeNote, setThemeNote] = useState<Note>(null);
  const [blockErrors, setBlockErrors] = useState<Record<string, Record<string, string>>>({});
  const [blocksNote, setBlocksNote] = useState<Note>(null);
  const [blocksGeneral, setBlocksGeneral] = useState<string[]>([]);
  const [publishNote, setPublishNote] = useState<Note>(null);
  const [busy, setBusy] = useState<'profile' | 'theme' | 'blocks' | 'publish' | 'delete' | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();

  const stats = useApi<BioStats>('/bio/stats');
  const linkMap = useMemo(() => new Map(links.map((link) => [link.id, link])), [links]);
  const statsMap = useMemo(() => {
    const data = stats.data;
    if (!data || data.upgrade || !data.configured) return null;
    return new Map(data.blocks.map((row) => [row.linkId, row]));
  }, [stats.data]);

  const profileDirty =
    profile.handle !== saved.handle ||
    profile.title !== saved.title ||
    profile.bio !== (saved.bio ?? '') ||
    profile.avatarUrl !== (saved.avatarUrl ?? '');
  const themeDirty = canTheme && !sameTheme(theme, saved.theme);
  const blocksDirty = !sameBlocks(blocks, saved.blocks);
  const dirty = profileDirty || themeDirty || blocksDirty;

  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const saveProfile = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('profile');
    setProfileErrors({});
    setProfileNote(null);
    try {
      const page = await put<BioPage>('/bio', {
        handle: profile.handle.trim(),
        title: profile.title,
        bio: profile.bio.trim() ? profile.bio : null,
        avatarUrl: profile.avatarUrl.trim() ? profile.avatarUrl.trim() : null,
      });
      setSaved(page);
      setProfile(profileOf(page));
      setProfileNote({
        kind: 'success',
        text:
          page.handle !== saved.handle
            ? `Saved. Your page now lives at ${publicUrl(page.handle)}.`
            : 'Profile saved.',
      });
    } catch (error) {
      const found = fieldErrorsOf(error);
      if (found) setProfileErrors(found);
      else setProfileNote({ kind: 'error', text: messageOf(error) });
    } finally {
      setBusy(null);
    }
  };

  const saveTheme = async () => {
    setBusy('theme');
    setThemeErrors({});
    setThemeNote(null);
    try {
      const page = await put<BioPage>('/bio', { handle: saved.handle, theme });
      setSaved(page);
      setTheme(page.theme);
      setThemeNote({ kind: 'success', text: 'Theme saved.' });
    } catch (error) {
      const fields = error instanceof ApiError ? error.fieldErrors() : {};
      if (Object.keys(fields).length > 0) setThemeErrors(fields);
      else setThemeNote({ kind: 'error', text: messageOf(error) });
    } finally {
      setBusy(null);
    }
  };

  const saveBlocks = async () => {
    setBusy('blocks');
    setBlockErrors({});
    setBlocksGeneral([]);
    setBlocksNote(null);
    try {
      const page = await put<BioPage>('/bio/blocks', blocksForSave(blocks));
      setSaved(page);
      setBlocks(page.blocks);
      setBlocksNote({
        kind: 'success',
        text: page.published ? 'Blocks saved. They are live on your page.' : 'Blocks saved.',
      });
      void stats.reload();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_blocks') {
        const { byBlock, general } = errorsByBlock(error.fieldErrors(), blocks);
        setBlockErrors(byBlock);
        setBlocksGeneral(general);
        setBlocksNote({
          kind: 'error',
          text: 'Some blocks need a fix before they can be saved. Nothing was saved.',
        });
      } else if (error instanceof ApiError && error.code === 'unknown_link') {
        const unknown = new Set((error.body as { linkIds?: string[] }).linkIds ?? []);
        const byBlock: Record<string, Record<string, string>> = {};
        for (const block of blocks) {
          const message = 'This link is not in your workspace any more. Pick another one.';
          if (block.t === 'link' && unknown.has(block.linkId)) byBlock[block.id] = { linkId: message };
          if (block.t === 'social') {
            block.items.forEach((item, i) => {
              if (unknown.has(item.linkId))
                byBlock[block.id] = { ...byBlock[block.id], [`items.${i}.linkId`]: message };
            });
          }
        }
        setBlockErrors(byBlock);
        setBlocksNote({
          kind: 'error',
          text: `A block points at a link that does not exist. Nothing was saved.`,
        });
      } else {
        setBlocksNote({ kind: 'error', text: messageOf(error) });
      }
    } finally {
      setBusy(null);
    }
  };

  const setPublished = async (published: boolean) => {
    setBusy('publish');
    setPublishNote(null);
    try {
      const page = await put<BioPage>('/bio', { handle: saved.handle, published });
      setSaved(page);
      setPublishNote({
        kind: 'success',
        text: published ? 'Your page is live.' : 'Your page is offline. Visitors now get a 404.',
      });
    } catch (error) {
      setPublishNote({ kind: 'error', text: messageOf(error) });
    } finally {
      setBusy(null);
    }
  };

  const deletePage = async () => {
    setBusy('delete');
    setDeleteError(undefined);
    try {
      await del('/bio');
      setConfirmDelete(false);
      onDeleted();
    } catch (error) {
      setDeleteError(messageOf(error));
    } finally {
      setBusy(null);
    }
  };

  const url = publicUrl(saved.handle);
  const previewTheme = canTheme ? theme : null;

  return (
    <>
      <PageHeader
        title="Bio page"
        subtitle="Every tap on your page escapes the in-app browser and opens the right app."
        actions={
          saved.published ? (
            <a className="btn btn-secondary" href={`/@${saved.handle}`} target="_blank" rel="noopener">
              View live page <span aria-hidden="true">↗</span>
            </a>
          ) : null
        }
      />
      <div className="bio-layout">
        <div className="bio-editor">
          <section
            className={`card publish-card${saved.published ? ' is-live' : ''}`}
            aria-labelledby="publish-title"
          >
            <div className="publish-main">
              <span className={`status-dot${saved.published ? ' live' : ''}`} aria-hidden="true" />
              <div className="publish-text">
                <h2 id="publish-title" className="publish-title">
                  {saved.published ? 'Published' : 'Draft'}
                  <span className="sr-only">: </span>
                  <span className="publish-sub">
                    {saved.published ? 'Anyone with the link can see it' : 'Only you can see it'}
                  </span>
                </h2>
                <div className="publish-url">
                  {saved.published ? (
                    <a
                      className="mono"
                      href={`/@${saved.handle}`}
                      target="_blank"
                      rel="noopener"
                      aria-label={`Open ${url} in a new tab`}
                    >
                      {url.replace(/^https?:\/\//, '')}
                    </a>
                  ) : (
                    <span className="mono">{url.replace(/^https?:\/\//, '')}</span>
                  )}
                  <CopyButton text={url} label="Copy link" />
                </div>
              </div>
              <Button
                variant={saved.published ? 'secondary' : 'primary'}
                busy={busy === 'publish'}
                aria-pressed={saved.published}
                onClick={() => void setPublished(!saved.published)}
              >
                {saved.published ? 'Unpublish' : 'Publish'}
              </Button>
            </div>
            {publishNote ? <Banner kind={publishNote.kind}>{publishNote.text}</Banner> : null}
            {saved.published && dirty ? (
              <p className="hint publish-hint">
                You have unsaved changes: visitors see the last saved version until you save.
              </p>
            ) : null}
          </section>

          <Card
            title={<SectionTitle text="Blocks" dirty={blocksDirty} count={blocks.length} />}
            className="blocks-card"
          >
            {blocksNote ? <Banner kind={blocksNote.kind}>{blocksNote.text}</Banner> : null}
            {blocksGeneral.map((message) => (
              <Banner key={message}>{message}</Banner>
            ))}
            {stats.data?.upgrade ? (
              <p className="stats-upsell">
                <span aria-hidden="true">★</span> Taps and app-open rates per block come with Hero.{' '}
                <a href="#/settings">See plans</a>
              </p>
            ) : null}
            {linksLoading ? <Loading label="Loading your links" /> : null}
            {linksError ? <Banner>Your links could not be loaded: {linksError}</Banner> : null}
            <BlocksEditor
              blocks={blocks}
              onChange={setBlocks}
              links={links}
              linkMap={linkMap}
              errors={blockErrors}
              stats={statsMap}
              statsWindow={stats.data?.window ?? 30}
            />
            <div className="blocks-save">
              <Button
                variant="primary"
                busy={busy === 'blocks'}
                disabled={!blocksDirty}
                onClick={() => void saveBlocks()}
              >
                Save blocks
              </Button>
              {blocksDirty ? (
                <>
                  <Button
                    variant="ghost"
                    onClick={() => {
                      setBlocks(saved.blocks);
                      setBlockErrors({});
                      setBlocksGeneral([]);
                    }}
                  >
                    Discard changes
                  </Button>
                  <span className="hint">Unsaved: the whole list is written in one go.</span>
                </>
              ) : null}
            </div>
          </Card>

          <Card title={<SectionTitle text="Profile" dirty={profileDirty} />}>
            <form onSubmit={saveProfile} noValidate>
              {profileNote ? <Banner kind={profileNote.kind}>{profileNote.text}</Banner> : null}
              <div className="form-grid">
                <TextField
                  label="Handle"
                  value={profile.handle}
                  onChange={(event) => setProfile({ ...profile, handle: event.target.value })}
                  error={profileErrors.handle}
                  hint={
                    <span className="mono url-hint">
                      {origin().replace(/^https?:\/\//, '')}/@{profile.handle.trim().toLowerCase()}
                    </span>
                  }
                  autoCapitalize="none"
                  autoCorrect="off"
                  spellCheck={false}
                  maxLength={30}
                />
                <TextField
                  label="Display name"
                  value={profile.title}
                  onChange={(event) => setProfile({ ...profile, title: event.target.value })}
                  error={profileErrors.title}
                  maxLength={100}
                />
              </div>
              <TextArea
                label="Bio"
                value={profile.bio}
                onChange={(event) => setProfile({ ...profile, bio: event.target.value })}
                error={profileErrors.bio}
                maxLength={500}
                rows={3}
                placeholder="Filmmaker and coffee nerd. New videos every Friday."
                hint={`${profile.bio.length} / 500`}
              />
              <TextField
                label="Avatar URL"
                type="url"
                value={profile.avatarUrl}
                onChange={(event) => setProfile({ ...profile, avatarUrl: event.target.value })}
                error={profileErrors.avatarUrl}
                placeholder="https://…/me.jpg"
                hint="An https:// image. Without one, your initial is shown on the accent colour."
              />
              <div className="form-actions">
                <Button type="submit" variant="primary" busy={busy === 'profile'} disabled={!profileDirty}>
                  Save profile
                </Button>
                {profileDirty ? (
                  <Button variant="ghost" onClick={() => setProfile(profileOf(saved))}>
                    Discard
                  </Button>
                ) : null}
              </div>
            </form>
          </Card>

          <Card title={<SectionTitle text="Theme" dirty={themeDirty} />}>
            {canTheme ? (
              <>
                {themeNote ? <Banner kind={themeNote.kind}>{themeNote.text}</Banner> : null}
                <ThemeEditor theme={theme} onChange={setTheme} errors={themeErrors} />
                <div className="form-actions">
                  <Button
                    variant="primary"
                    busy={busy === 'theme'}
                    disabled={!themeDirty}
                    onClick={() => void saveTheme()}
                  >
                    Save theme
                  </Button>
                  {theme !== null ? (
                    <Button variant="ghost" onClick={() => setTheme(null)}>
                      Use the default theme
                    </Button>
                  ) : null}
                </div>
              </>
            ) : (
              <>
                <UpgradeNotice feature="bioCustomTheme" />
                <p className="muted theme-locked">
                  Your page uses the linkhop theme: warm paper, dark ink and a violet accent.
                </p>
              </>
            )}
          </Card>

          <section className="card danger-card" aria-labelledby="danger-title">
            <div>
              <h2 id="danger-title">Delete bio page</h2>
              <p className="muted">
                Takes /@{saved.handle} offline and frees the handle. Your links keep working.
              </p>
            </div>
            <Button variant="danger" onClick={() => setConfirmDelete(true)}>
              Delete page
            </Button>
          </section>
        </div>

        <aside className="bio-preview-col" aria-label="Preview">
          <div className="preview-sticky">
            <div className="preview-head">
              <span className="preview-label">Live preview</span>
              {dirty ? <Badge tone="warn">Unsaved changes</Badge> : <Badge tone="good">Saved</Badge>}
            </div>
            <BioPreview
              page={{
                handle: profile.handle.trim().toLowerCase() || saved.handle,
                title: profile.title,
                bio: profile.bio || null,
                avatarUrl: profile.avatarUrl || null,
              }}
              theme={previewTheme}
              blocks={blocks}
              links={linkMap}
              branded={!session.features.removeBranding}
              origin={origin()}
            />
          </div>
        </aside>
      </div>

      <Modal open={confirmDelete} title="Delete your bio page?" onClose={() => setConfirmDelete(false)}>
        <p>
          <strong>/@{saved.handle}</strong> goes offline right away and the handle becomes free for anyone to
          claim. Its blocks, theme and media kit are deleted.
        </p>
        <p className="muted">
          The links on it are not touched: every short link keeps redirecting and counting taps wherever you
          shared it.
        </p>
        {deleteError ? <Banner>{deleteError}</Banner> : null}
        <div className="form-actions modal-actions">
          <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
          <Button variant="danger" busy={busy === 'delete'} onClick={() => void deletePage()}>
            Delete bio page
          </Button>
        </div>
      </Modal>
    </>
  );
}

function SectionTitle({ text, dirty, count }: { text: string; dirty: boolean; count?: number }) {
  return (
    <span className="section-title">
      {text}
      {count !== undefined ? <span className="section-count">{count}</span> : null}
      {dirty ? <Badge tone="warn">Unsaved</Badge> : null}
    </span>
  );
}

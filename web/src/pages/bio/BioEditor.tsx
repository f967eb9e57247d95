import { useEffect, useMemo, useState } from 'react';
import { del } from '../../api/client';
import type { BioPage, Block, Link, Theme } from '../../api/types';
import { Badge, PageHeader } from '../../components/ui';
import { useAuthed } from '../../session';
import { BlocksCard } from './BlocksCard';
import { type Profile, profileOf, sameBlocks, sameProfile, sameTheme, siteOrigin } from './model';
import { BioPreview, type PreviewPage } from './PhonePreview';
import { ProfileCard } from './ProfileCard';
import { PublishCard } from './PublishCard';
import { DangerZone, NewTabLink } from './parts';
import { ThemeCard } from './ThemeCard';

/**
 * The claimed page's editor. It holds the unsaved profile, theme and blocks so the phone preview can
 * draw them; each card saves its own part and hands back the page the server stored.
 */
export function BioEditor({
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
  const linkMap = useMemo(() => new Map(links.map((link) => [link.id, link])), [links]);

  const profileDirty = !sameProfile(profile, profileOf(saved));
  const themeDirty = canTheme && !sameTheme(theme, saved.theme);
  const blocksDirty = !sameBlocks(blocks, saved.blocks);
  const dirty = profileDirty || themeDirty || blocksDirty;
  useWarnBeforeLeaving(dirty);

  return (
    <>
      <PageHeader
        title="Bio page"
        subtitle="Every tap on your page escapes the in-app browser and opens the right app."
        actions={
          saved.published ? (
            <NewTabLink className="btn btn-secondary" href={`/@${saved.handle}`} label="View live page" />
          ) : null
        }
      />
      <div className="bio-layout">
        <div className="bio-editor">
          <PublishCard saved={saved} dirty={dirty} onSaved={setSaved} />
          <BlocksCard
            blocks={blocks}
            onBlocksChange={setBlocks}
            saved={saved}
            onSaved={setSaved}
            dirty={blocksDirty}
            links={links}
            linkMap={linkMap}
            linksLoading={linksLoading}
            linksError={linksError}
          />
          <ProfileCard
            profile={profile}
            onProfileChange={setProfile}
            saved={saved}
            onSaved={setSaved}
            dirty={profileDirty}
          />
          <ThemeCard
            canTheme={canTheme}
            theme={theme}
            onThemeChange={setTheme}
            saved={saved}
            onSaved={setSaved}
            dirty={themeDirty}
          />
          <DeletePageCard handle={saved.handle} onDeleted={onDeleted} />
        </div>

        <aside className="bio-preview-col" aria-label="Preview">
          <div className="preview-sticky">
            <div className="preview-head">
              <span className="preview-label">Live preview</span>
              {dirty ? <Badge tone="warn">Unsaved changes</Badge> : <Badge tone="good">Saved</Badge>}
            </div>
            <BioPreview
              page={previewPageOf(profile, saved.handle)}
              theme={canTheme ? theme : null}
              blocks={blocks}
              links={linkMap}
              branded={!session.features.removeBranding}
              origin={siteOrigin()}
            />
          </div>
        </aside>
      </div>
    </>
  );
}

/** The unsaved profile as the phone draws it: a blank handle keeps showing the saved one. */
function previewPageOf(profile: Profile, savedHandle: string): PreviewPage {
  return {
    handle: profile.handle.trim().toLowerCase() || savedHandle,
    title: profile.title,
    bio: profile.bio || null,
    avatarUrl: profile.avatarUrl || null,
  };
}

/** Deleting frees the handle; the links on the page keep working, and the dialog says so. */
function DeletePageCard({ handle, onDeleted }: { handle: string; onDeleted: () => void }) {
  return (
    <DangerZone
      id="danger-title"
      title="Delete bio page"
      description={`Takes /@${handle} offline and frees the handle. Your links keep working.`}
      buttonLabel="Delete page"
      confirmTitle="Delete your bio page?"
      confirmLabel="Delete bio page"
      onConfirm={() => del('/bio')}
      onDone={onDeleted}
    >
      <p>
        <strong>/@{handle}</strong> goes offline right away and the handle becomes free for anyone to claim.
        Its blocks, theme and media kit are deleted.
      </p>
      <p className="muted">
        The links on it are not touched: every short link keeps redirecting and counting taps wherever you
        shared it.
      </p>
    </DangerZone>
  );
}

/** The browser asks before a reload or close throws away unsaved edits. */
function useWarnBeforeLeaving(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
}

import { LINK_CAPS } from '../../../../src/tenancy/plans.js';
import type { Link } from '../../api/types';
import { Button, Card } from '../../components/ui';
import { TIER_NAMES } from '../../plans';
import { useAuthed } from '../../session';
import { PreviewCard, QrCard, ShortLinkCard } from './side';

/** The side column while creating: what a new link does, and how many the plan keeps. */
export function NewLinkAside() {
  const { tier } = useAuthed().org;
  return (
    <aside className="lk-editor-side" aria-label="About new links">
      <Card title="What you get" className="lk-about-card">
        <ul className="lk-about">
          <li>
            <strong>Opens the app.</strong> Taps from Instagram, TikTok and other in-app browsers land in
            YouTube, Spotify, Amazon and dozens more, not a login wall.
          </li>
          <li>
            <strong>Every tap counted.</strong> Opened in the app, in the browser, or broken: see it in
            Analytics.
          </li>
          <li>
            <strong>Ready to share.</strong> After you create it: the short link, a QR code and its preview.
          </li>
        </ul>
        <p className="hint">
          {TIER_NAMES[tier]} keeps up to {LINK_CAPS[tier].toLocaleString()} live links.
        </p>
      </Card>
    </aside>
  );
}

/** The side column of a saved link: share it, its QR code and preview, and the way to archive it. */
export function LinkToolsAside({ link, onArchive }: { link: Link; onArchive: () => void }) {
  return (
    <aside className="lk-editor-side" aria-label="Link tools">
      <ShortLinkCard link={link} />
      <QrCard link={link} />
      <PreviewCard link={link} />
      <Card title="Archive">
        <p className="hint">Hide it from your lists and free a slot. It keeps redirecting.</p>
        <Button variant="danger" className="btn-small" onClick={onArchive}>
          Archive link
        </Button>
      </Card>
    </aside>
  );
}

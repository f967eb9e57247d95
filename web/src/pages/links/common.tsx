import { ApiError, messageOf, post } from '../../api/client';
import type { Feature, Link } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm';
import { Badge } from '../../components/ui';
import { FEATURE_NAMES, upgradeSentence } from '../../plans';

/** Shared bits of the two links pages: names, badges and the archive dialog. */

const PLATFORM_NAMES: Record<string, string> = {
  amazon: 'Amazon',
  apple_music: 'Apple Music',
  apple_podcasts: 'Apple Podcasts',
  ebay: 'eBay',
  google_maps: 'Google Maps',
  linkedin: 'LinkedIn',
  soundcloud: 'SoundCloud',
  tiktok: 'TikTok',
  whatsapp: 'WhatsApp',
  x: 'X',
  youtube: 'YouTube',
  youtube_music: 'YouTube Music',
};

export function platformName(key: string): string {
  return (
    PLATFORM_NAMES[key] ??
    key
      .split('_')
      .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
      .join(' ')
  );
}

/** `https://lnk.example/abc` → `lnk.example/abc`: the part a person reads. */
export function shortDisplay(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

/** A/B variant 0 → `A`: the letter the editor and the analytics call it by. */
export const variantLetter = (index: number): string => String.fromCharCode(65 + index);

/** The 403 codes name features in snake_case (`ab_testing`): back to the feature, when it is one. */
export function featureOfCode(code: string): Feature | undefined {
  return (Object.keys(FEATURE_NAMES) as Feature[]).find(
    (feature) => feature.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) === code,
  );
}

/** A plain sentence for a failed link write that is not a field error. */
export function linkErrorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const feature = featureOfCode(error.code);
    if (error.status === 403 && feature) return `${upgradeSentence(feature)} Upgrade to use it on this link.`;
    if (error.code === 'read_only')
      return 'This link is read-only: your workspace has more live links than your plan allows. It still redirects.';
    if (error.code === 'link_cap_reached')
      return 'You have reached the live link limit of your plan. Archive a link or upgrade to create more.';
  }
  return messageOf(error);
}

/** The powers a link uses, as small badges. */
export function PowerBadges({ link }: { link: Link }) {
  const badges: { label: string; tone: 'neutral' | 'warn' | 'brand'; title: string }[] = [];
  if (link.readOnly)
    badges.push({ label: 'Read-only', tone: 'warn', title: 'Over the plan’s link cap: still redirects' });
  if (link.hasPassword)
    badges.push({ label: 'Password', tone: 'neutral', title: 'Visitors need a password' });
  if (link.ab) badges.push({ label: 'A/B', tone: 'brand', title: `${link.ab.length} variants` });
  if (link.routing) badges.push({ label: 'Routing', tone: 'brand', title: 'Device or country routing' });
  if (link.sched && link.sched.length > 0)
    badges.push({ label: 'Scheduled', tone: 'brand', title: `${link.sched.length} scheduled destinations` });
  if (link.expired)
    badges.push({ label: 'Ended', tone: 'warn', title: 'Campaign over: visits go to the afterwards URL' });
  else if (link.expiresAt || link.maxClicks)
    badges.push({ label: 'Ends', tone: 'neutral', title: 'Has an end date or a click limit' });
  if (badges.length === 0) return null;
  return (
    <span className="lk-link-powers">
      {badges.map((badge) => (
        <span key={badge.label} title={badge.title}>
          <Badge tone={badge.tone}>{badge.label}</Badge>
        </span>
      ))}
    </span>
  );
}

/** Confirms and archives a link: it leaves the lists, frees a slot, and keeps redirecting. */
export function ArchiveDialog({
  link,
  onClose,
  onArchived,
}: {
  link: Link | null;
  onClose: () => void;
  onArchived: (link: Link) => void;
}) {
  return (
    <ConfirmDialog
      open={link !== null}
      title="Archive this link?"
      confirmLabel="Archive link"
      onClose={onClose}
      onConfirm={async () => {
        if (!link) return;
        await post(`/links/${link.id}/archive`);
        onArchived(link);
      }}
    >
      {link ? (
        <div className="lk-archive-dialog">
          <p>
            <strong className="lk-break">{shortDisplay(link.shortUrl)}</strong> leaves your links list and
            frees a slot on your plan.
          </p>
          <p>
            It <strong>keeps redirecting</strong>: anyone who already has it (a bio, a post, a printed QR
            code) still lands on the destination. Archiving cannot be undone from the dashboard.
          </p>
        </div>
      ) : null}
    </ConfirmDialog>
  );
}

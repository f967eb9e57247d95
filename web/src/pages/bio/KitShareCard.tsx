import type { ReactNode } from 'react';
import { Card, CopyButton } from '../../components/ui';
import { withoutScheme } from './model';
import { NewTabLink } from './parts';

/** Where the public media kit is served. */
export const kitPagePath = (handle: string): string => `/@${handle}/media-kit`;

export type CardState = 'hidden' | 'shown' | 'no-data';

/** The kit's public address and its share card image, to copy; the card itself once it can be drawn. */
export function KitShareCard({
  handle,
  origin,
  live,
  bioPublished,
  cardState,
  onCardFailed,
}: {
  handle: string;
  origin: string;
  /** The kit and the bio page are both published, so the addresses answer. */
  live: boolean;
  bioPublished: boolean | undefined;
  /** 'hidden': not shared; 'shown': the image is drawn; 'no-data': the server had no taps to draw. */
  cardState: CardState;
  onCardFailed: () => void;
}) {
  const pagePath = kitPagePath(handle);
  const cardPath = `/api/public/media-kit/${encodeURIComponent(handle)}/card.svg`;
  return (
    <Card title="Share">
      <dl className="share-list">
        <ShareRow label="Public page" url={`${origin}${pagePath}`}>
          {live ? <NewTabLink className="btn btn-ghost btn-small" href={pagePath} label="Open" /> : null}
        </ShareRow>
        <ShareRow label="Share card (1200×630)" url={`${origin}${cardPath}`} />
      </dl>
      {!live ? (
        <p className="hint">
          These addresses answer once the kit {bioPublished === false ? 'and your bio page are' : 'is'}{' '}
          published.
        </p>
      ) : null}
      {cardState === 'shown' ? (
        <figure className="kit-card-img">
          <img
            src={cardPath}
            alt={`App-open rate card for @${handle}`}
            width={1200}
            height={630}
            onError={onCardFailed}
          />
          <figcaption className="hint">The card link previews show when you share your kit.</figcaption>
        </figure>
      ) : null}
      {cardState === 'no-data' ? (
        <p className="hint">The share card appears once taps have been measured.</p>
      ) : null}
    </Card>
  );
}

/** One address: shown without its scheme, with a copy button and any further actions. */
function ShareRow({ label, url, children }: { label: string; url: string; children?: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <span className="mono truncate-any">{withoutScheme(url)}</span>
        <span className="share-actions">
          <CopyButton text={url} label="Copy" />
          {children}
        </span>
      </dd>
    </div>
  );
}

import type { CSSProperties, ReactNode } from 'react';
import type { Block, Link, Theme } from '../../api/types';
import { effectiveTheme, socialName } from './model';

/**
 * A phone-sized rendering of the public creator pages, drawn from the editor's unsaved state. It copies
 * the look of src/bio/page-shell.ts and page-html.ts (same sizes, radii, opacities, theme variables),
 * so what the creator sees here is what a visitor gets at /@handle.
 */

export function themeStyle(theme: Theme | null): CSSProperties {
  const t = effectiveTheme(theme);
  // Custom properties go through CSSOM (style.setProperty), which the dashboard's CSP allows.
  return { '--pv-bg': t.bg, '--pv-ink': t.ink, '--pv-ac': t.accent } as CSSProperties;
}

export function PhoneFrame({
  theme,
  label,
  address,
  children,
}: {
  theme: Theme | null;
  label: string;
  address: string;
  children: ReactNode;
}) {
  return (
    <figure className="phone" aria-label={label}>
      <div className="phone-bezel">
        <div className="phone-bar" aria-hidden="true">
          <span className="phone-notch" />
        </div>
        <div className="phone-url" title={address}>
          <svg className="phone-lock" viewBox="0 0 12 14" width="9" height="11" aria-hidden="true">
            <rect x="1" y="6" width="10" height="8" rx="2" />
            <path d="M3.5 6V4.2a2.5 2.5 0 0 1 5 0V6" fill="none" stroke="currentColor" strokeWidth="1.6" />
          </svg>
          {address}
        </div>
        <div className="phone-screen pv" style={themeStyle(theme)} data-testid="preview-screen">
          {children}
        </div>
      </div>
    </figure>
  );
}

export function PreviewHeader({
  title,
  handle,
  bio,
  avatarUrl,
  suffix,
}: {
  title: string;
  handle: string;
  bio: string | null;
  avatarUrl: string | null;
  suffix?: string;
}) {
  const https = avatarUrl?.startsWith('https://') ? avatarUrl : null;
  const initial = Array.from(title.trim())[0]?.toUpperCase() ?? '@';
  return (
    <header className="pv-hd">
      {https ? (
        <img className="pv-av" src={https} alt="" width={96} height={96} />
      ) : (
        <div className="pv-av pv-ini" aria-hidden="true">
          {initial}
        </div>
      )}
      <p className="pv-title">{title.trim() || handle}</p>
      <div className="pv-at">
        @{handle}
        {suffix ? ` · ${suffix}` : ''}
      </div>
      {bio?.trim() ? <p className="pv-bio">{bio}</p> : null}
    </header>
  );
}

export function BrandFooter({ branded }: { branded: boolean }) {
  return branded ? (
    <footer className="pv-foot">
      Made with <span className="pv-u">linkhop</span>
    </footer>
  ) : null;
}

export interface PreviewPage {
  handle: string;
  title: string;
  bio: string | null;
  avatarUrl: string | null;
}

/** The bio page itself: header, blocks in order, footer. Links are shown, not followed. */
export function BioPreview({
  page,
  theme,
  blocks,
  links,
  branded,
  origin,
  demo = false,
}: {
  page: PreviewPage;
  theme: Theme | null;
  blocks: readonly Block[];
  links: ReadonlyMap<string, Link>;
  branded: boolean;
  origin: string;
  /** Sample content (the claim step): no link is missing. */
  demo?: boolean;
}) {
  const host = origin.replace(/^https?:\/\//, '');
  return (
    <PhoneFrame theme={theme} label="Live preview of your bio page" address={`${host}/@${page.handle}`}>
      <div className="pv-main">
        <PreviewHeader {...page} />
        <div className="pv-bl">
          {blocks.length === 0 ? (
            <p className="pv-empty">Your blocks appear here.</p>
          ) : (
            blocks.map((block) => <PreviewBlock key={block.id} block={block} links={links} demo={demo} />)
          )}
        </div>
        <BrandFooter branded={branded} />
      </div>
    </PhoneFrame>
  );
}

function PreviewBlock({
  block,
  links,
  demo,
}: {
  block: Block;
  links: ReadonlyMap<string, Link>;
  demo: boolean;
}) {
  switch (block.t) {
    case 'link': {
      const link = links.get(block.linkId);
      // A block without a link cannot be saved: it stays visible, dimmed, so it gets fixed.
      return (
        <div
          className={`pv-l${block.linkId || demo ? '' : ' pv-missing'}`}
          data-block={block.id}
          title={link ? link.shortUrl : undefined}
        >
          {block.label.trim() || 'Untitled link'}
          {block.note?.trim() ? <small>{block.note}</small> : null}
        </div>
      );
    }
    case 'header':
      return <p className="pv-h2">{block.text.trim() || 'Header'}</p>;
    case 'text':
      return <p className="pv-tx">{block.text.trim() || 'Your text'}</p>;
    case 'social': {
      const items = demo ? block.items : block.items.filter((item) => item.linkId !== '');
      return (
        <div className="pv-so">
          {items.length === 0 ? (
            <span className="pv-missing pv-chip">Pick a link for each icon</span>
          ) : (
            items.map((item, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: display-only chips; a key may repeat
              <span className="pv-chip" key={`${item.key}-${index}`}>
                {socialName(item.key)}
              </span>
            ))
          )}
        </div>
      );
    }
  }
}

import { ApiError } from '../../api/client';
import type { BioPage, Block, Link, Theme } from '../../api/types';

/**
 * The bio editor's pure helpers: block ids, labels, reordering, the default theme and presets, the
 * profile form's values, and the mapping of the server's errors back onto the field or block they name.
 */

/** The dashboard's own origin: the public pages live on the same host. */
export const siteOrigin = (): string => window.location.origin;

/** Where /@handle is served, as a visitor types it. */
export const publicPageUrl = (handle: string): string => `${siteOrigin()}/@${handle}`;

/** "https://lnk.example/@ada" → "lnk.example/@ada": shown addresses read shorter without the scheme. */
export function withoutScheme(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

/** The public page's own default (src/bio/page-shell.ts DEFAULT_THEME): the preview must match it. */
export const DEFAULT_THEME: Theme = { bg: '#f6f4ef', ink: '#17161c', accent: '#5b4bff' };

export const THEME_PRESETS: { name: string; theme: Theme }[] = [
  { name: 'Paper', theme: DEFAULT_THEME },
  { name: 'Midnight', theme: { bg: '#0f0e17', ink: '#fffffe', accent: '#ff8906' } },
  { name: 'Mint', theme: { bg: '#ecfaf3', ink: '#0b3d2e', accent: '#0f9d63' } },
  { name: 'Sunset', theme: { bg: '#fff3eb', ink: '#3b1f1a', accent: '#e8542f' } },
  { name: 'Ocean', theme: { bg: '#e9f3ff', ink: '#0b2545', accent: '#1f6feb' } },
  { name: 'Mono', theme: { bg: '#ffffff', ink: '#111111', accent: '#111111' } },
];

export const SOCIAL_KEYS = [
  'instagram',
  'tiktok',
  'youtube',
  'spotify',
  'x',
  'threads',
  'twitch',
  'facebook',
  'snapchat',
  'pinterest',
  'linkedin',
  'apple_music',
  'soundcloud',
  'discord',
  'github',
  'website',
] as const;

export type BlockKind = Block['t'];

export const KIND_NAMES: Record<BlockKind, string> = {
  link: 'Link',
  header: 'Header',
  text: 'Text',
  social: 'Social icons',
};

/** A block id: a UUID where the browser offers one (secure contexts), random hex otherwise. */
export function newBlockId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** How a social key reads on the public page: `apple_music` → `apple music` (capitalised by CSS). */
export function socialName(key: string): string {
  return key.replace(/[-_]/g, ' ');
}

/** What a block is called in buttons and screen-reader labels ("Move Listen on Spotify up"). */
export function blockName(block: Block): string {
  switch (block.t) {
    case 'link':
      return block.label.trim() || 'link block';
    case 'header':
      return block.text.trim() || 'header block';
    case 'text': {
      const text = block.text.trim();
      if (!text) return 'text block';
      return text.length > 40 ? `${text.slice(0, 40)}…` : text;
    }
    case 'social':
      return 'Social icons';
  }
}

export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  if (from === to || from < 0 || to < 0 || from >= list.length || to >= list.length) return [...list];
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
}

/** A friendly first label for a link: its platform ("Youtube") or its destination's host. */
export function suggestLabel(link: Link | undefined): string {
  if (!link) return '';
  if (link.platformKey) {
    const key = link.platformKey.replace(/[-_]/g, ' ');
    return key.charAt(0).toUpperCase() + key.slice(1);
  }
  try {
    return new URL(link.destination).hostname.replace(/^www\./, '');
  } catch {
    return link.slug;
  }
}

/** "lnk.example/abc" for a select option or a caption. */
export function bareUrl(url: string): string {
  return withoutScheme(url).replace(/\/$/, '');
}

/** "open.spotify.com/track/4uLU… (/single)": where it goes first, then its short address. */
export function linkOptionLabel(link: Link): string {
  const to = bareUrl(link.destination).replace(/^www\./, '');
  return `${to.length > 36 ? `${to.slice(0, 36)}…` : to}  (/${link.slug})`;
}

export function newBlock(kind: BlockKind, links: readonly Link[], blocks: readonly Block[]): Block {
  const id = newBlockId();
  if (kind === 'header') return { t: 'header', id, text: '' };
  if (kind === 'text') return { t: 'text', id, text: '' };
  const used = new Set(blocks.flatMap((b) => (b.t === 'link' ? [b.linkId] : [])));
  const first = links.find((l) => !used.has(l.id)) ?? links[0];
  if (kind === 'social') return { t: 'social', id, items: [{ key: 'instagram', linkId: first?.id ?? '' }] };
  return { t: 'link', id, linkId: first?.id ?? '', label: suggestLabel(first) };
}

/** What PUT /bio/blocks gets: empty optional notes dropped, nothing else changed. */
export function blocksForSave(blocks: readonly Block[]): Block[] {
  return blocks.map((block) => {
    if (block.t !== 'link') return block;
    const { note, ...rest } = block;
    return note?.trim() ? { ...rest, note } : rest;
  });
}

export function sameBlocks(a: readonly Block[], b: readonly Block[]): boolean {
  return JSON.stringify(blocksForSave(a)) === JSON.stringify(blocksForSave(b));
}

/**
 * The server's invalid_blocks issues are keyed `index.field` (`2.label`, `0.items.1.linkId`); this keys
 * them by block id and field (`label`, `items.1.linkId`) so each lands at its own input.
 */
export function errorsByBlock(
  fieldErrors: Record<string, string>,
  blocks: readonly Block[],
): { byBlock: Record<string, Record<string, string>>; general: string[] } {
  const byBlock: Record<string, Record<string, string>> = {};
  const general: string[] = [];
  for (const [key, message] of Object.entries(fieldErrors)) {
    const [head, ...rest] = key.split('.');
    const index = Number(head);
    const block = head !== '' && Number.isInteger(index) ? blocks[index] : undefined;
    if (!block) {
      general.push(message);
      continue;
    }
    const field = rest.join('.') || '_';
    byBlock[block.id] = { ...byBlock[block.id], [field]: message };
  }
  return { byBlock, general };
}

/** The links a rejected save named as unknown (unknown_link), shown at each block field that uses one. */
export function unknownLinkErrors(
  unknownIds: readonly string[],
  blocks: readonly Block[],
): Record<string, Record<string, string>> {
  const unknown = new Set(unknownIds);
  const message = 'This link is not in your workspace any more. Pick another one.';
  const byBlock: Record<string, Record<string, string>> = {};
  for (const block of blocks) {
    if (block.t === 'link' && unknown.has(block.linkId)) byBlock[block.id] = { linkId: message };
    if (block.t !== 'social') continue;
    block.items.forEach((item, i) => {
      if (unknown.has(item.linkId))
        byBlock[block.id] = { ...byBlock[block.id], [`items.${i}.linkId`]: message };
    });
  }
  return byBlock;
}

/** The profile form: the page's text fields as the inputs hold them ('' for none). */
export interface Profile {
  handle: string;
  title: string;
  bio: string;
  avatarUrl: string;
}

export const profileOf = (page: BioPage): Profile => ({
  handle: page.handle,
  title: page.title,
  bio: page.bio ?? '',
  avatarUrl: page.avatarUrl ?? '',
});

export function sameProfile(a: Profile, b: Profile): boolean {
  return a.handle === b.handle && a.title === b.title && a.bio === b.bio && a.avatarUrl === b.avatarUrl;
}

export const sameTheme = (a: Theme | null, b: Theme | null): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * A claim or profile save's errors by field: handle_taken and invalid_handle land at the handle field.
 * Empty when the error names no field (it is shown as a note instead).
 */
export function profileFieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  if (error.code === 'handle_taken') {
    return { handle: 'That handle is already taken. Try another one.' };
  }
  const fields = error.fieldErrors();
  if (error.code === 'invalid_handle' && !fields.handle) return { handle: error.message };
  return fields;
}

/** `#abc` → `#aabbcc`; anything that is not a hex colour → undefined (the picker then shows a fallback). */
export function toPickerHex(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(v)) return v;
  if (/^#[0-9a-f]{8}$/.test(v)) return v.slice(0, 7);
  if (/^#[0-9a-f]{3,4}$/.test(v)) return `#${[...v.slice(1, 4)].map((c) => c + c).join('')}`;
  return undefined;
}

/** True when the browser understands `value` as a colour; the server has the final word on save. */
export function isColour(value: string): boolean {
  const v = value.trim();
  if (!v || /[;{}"'()]/.test(v.replace(/^(rgba?|hsla?)\([^;{}"']*\)$/i, ''))) return false;
  return typeof CSS !== 'undefined' && CSS.supports('color', v);
}

/** The theme the public page would paint: each colour the draft gets right, else the default. */
export function effectiveTheme(theme: Theme | null): Theme {
  if (!theme) return DEFAULT_THEME;
  return {
    bg: isColour(theme.bg) ? theme.bg.trim() : DEFAULT_THEME.bg,
    ink: isColour(theme.ink) ? theme.ink.trim() : DEFAULT_THEME.ink,
    accent: isColour(theme.accent) ? theme.accent.trim() : DEFAULT_THEME.accent,
  };
}

import type { EscapeStrategy } from '../../core/escape/index.js';

/** One visit to a hosted link, as the redirect saw it. */
export interface ClickInput {
  linkId: string;
  orgId: string;
  /** Epoch milliseconds. */
  at: number;
  /** A bot or link-preview fetch: stored apart, never counted as a click. */
  bot: boolean;
  variant: number | null;
  routed: string | null;
  country: string | null;
  city: string | null;
  device: 'ios' | 'android' | 'desktop' | 'other';
  sourceApp: string | null;
  referrerHost: string | null;
  platformKey: string | null;
  tapId: string | null;
  /** The escape strategy of the page served (per-cell rollups); absent or null without a page. */
  strategy?: EscapeStrategy | null;
  /** A visit to an expired link, re-pointed to its expired URL (issue #20): its outcome is `expired`. */
  expired?: boolean;
  /** `qr`: the visit came through the link's QR code (its `?qr=1` marker); absent for every other visit. */
  source?: 'qr';
}

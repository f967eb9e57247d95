import type { Outcomes } from '../../api/types';
import { Banner, formatRate } from '../../components/ui';
import { navigate } from '../../router';

/** Pieces both analytics pages share: the period picker, display names, and the not-connected banner. */

export const PERIODS = [7, 30, 90] as const;

/** `days` from the route's query, one of 7 / 30 / 90 (30 when absent or odd). */
export function periodOf(query: URLSearchParams): number {
  const days = Number(query.get('days'));
  return (PERIODS as readonly number[]).includes(days) ? days : 30;
}

/** Rewrites the hash route's query (empty values dropped), so a filtered view is a link one can share. */
export function setQuery(path: string, changes: Record<string, string | null>): void {
  const [bare, search] = path.split('?');
  const query = new URLSearchParams(search ?? '');
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === '') query.delete(key);
    else query.set(key, value);
  }
  const text = query.toString();
  navigate(text ? `${bare}?${text}` : (bare ?? '/'));
}

/** 7 / 30 / 90 days as a segmented radio group: one tab stop, arrow keys move, the label reads out. */
export function PeriodPicker({ days, onChange }: { days: number; onChange: (days: number) => void }) {
  return (
    <fieldset className="segmented">
      <legend className="sr-only">Period</legend>
      {PERIODS.map((value) => (
        <label key={value} className={value === days ? 'on' : undefined}>
          <input
            type="radio"
            name="period"
            value={value}
            checked={value === days}
            onChange={() => onChange(value)}
          />
          {value} days
        </label>
      ))}
    </fieldset>
  );
}

export function NotConnected() {
  return (
    <Banner kind="info">
      <strong>Analytics is not connected on this server.</strong> Links keep redirecting normally; clicks are
      not being recorded, so there are no numbers to show. The operator turns it on with{' '}
      <code>ANALYTICS=on</code>.
    </Banner>
  );
}

const PLATFORMS: Record<string, string> = {
  amazon: 'Amazon',
  ebay: 'eBay',
  etsy: 'Etsy',
  pinterest: 'Pinterest',
  reddit: 'Reddit',
  patreon: 'Patreon',
  messenger: 'Messenger',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  discord: 'Discord',
  instagram: 'Instagram',
  facebook: 'Facebook',
  threads: 'Threads',
  spotify: 'Spotify',
  apple_music: 'Apple Music',
  apple_podcasts: 'Apple Podcasts',
  soundcloud: 'SoundCloud',
  deezer: 'Deezer',
  google_maps: 'Google Maps',
  x: 'X',
  twitter: 'X (Twitter)',
  bluesky: 'Bluesky',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
  snapchat: 'Snapchat',
  youtube: 'YouTube',
  youtube_music: 'YouTube Music',
  twitch: 'Twitch',
  vimeo: 'Vimeo',
  netflix: 'Netflix',
  slack: 'Slack',
  zoom: 'Zoom',
  line: 'LINE',
  wechat: 'WeChat',
  gsa: 'Google app',
  kakaotalk: 'KakaoTalk',
  naver: 'Naver',
  other_webview: 'Other in-app browser',
};

/** A platform or in-app browser key as people say it; null is a plain web destination. */
export function platformName(key: string | null | undefined, none = 'Web (no app)'): string {
  if (!key) return none;
  return PLATFORMS[key] ?? key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

const DEVICES: Record<string, string> = { ios: 'iPhone / iPad', android: 'Android', desktop: 'Desktop' };
export function deviceName(key: string | null | undefined): string {
  if (!key) return 'Unknown';
  return DEVICES[key] ?? key.replace(/^./, (c) => c.toUpperCase());
}

let regions: Intl.DisplayNames | null | undefined;
/** `FR` → `France`; an unknown or missing code stays readable. */
export function countryName(code: string | null | undefined): string {
  if (!code) return 'Unknown';
  if (regions === undefined) {
    try {
      regions = new Intl.DisplayNames(undefined, { type: 'region' });
    } catch {
      regions = null;
    }
  }
  try {
    return regions?.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

export const reportedOf = (o: Outcomes) => o.opened + o.browser + o.broken;

/*
 * The words of the analytics pages (docs/analytics.md, "Words"): a click is a person's visit of a short
 * link; a tap is a click that was served an escape page (a phone, a destination an app opens), so a
 * desktop click is never a tap; an outcome is what a tap's page reported back.
 */

/**
 * The one app-open rate of the dashboard, written beside every rate it shows: the API's `appOpenRate`
 * (links, A/B variants, bio blocks), used for the escape heat-map too so one page never shows two.
 */
export const OPEN_RATE_MEANS = 'taps that opened the app ÷ taps that reported an outcome';

/** opened / reported, or null when nothing was reported (never 0 %). */
export function openRate(o: Outcomes | undefined): number | null {
  if (!o) return null;
  const reported = reportedOf(o);
  return reported === 0 ? null : o.opened / reported;
}

/** `2026-03-14` → `Mar 14`, read as a UTC day (the server's days are whole UTC days). */
export function dayLabel(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
}

export const hourLabel = (hour: number) => `${String(hour).padStart(2, '0')}:00 UTC`;

const OUTCOME_LABELS: Record<string, string> = {
  opened: 'Opened the app',
  browser: 'Stayed in browser',
  broken: 'Hand-off failed',
  unknown: 'No report',
  redirect: 'Plain redirect',
};
const OUTCOME_TONES: Record<string, 'good' | 'warn' | 'bad' | 'neutral'> = {
  opened: 'good',
  browser: 'warn',
  broken: 'bad',
};
export const outcomeLabel = (outcome: string) => OUTCOME_LABELS[outcome] ?? outcome;
export const outcomeTone = (outcome: string) => OUTCOME_TONES[outcome] ?? 'neutral';

/** What `sampled: true` means, in the words of docs/analytics.md ("Sampled"). */
export const SAMPLED_MEANS =
  'linkhop counts every click it records, but does not promise an audit-exact count: a click can be lost ' +
  'when the server is overloaded or stops before writing it, and bots and link previews are left out. ' +
  'App-open rates come only from the taps whose page reported an outcome.';

/** The API's `sampled` flag, explained; nothing when the answer does not say its numbers are sampled. */
export function SampledNote({ sampled }: { sampled: boolean | undefined }) {
  if (sampled !== true) return null;
  return (
    <details className="an-note an-sampled">
      <summary>Sampled estimates: read them as trends</summary>
      <p>
        {SAMPLED_MEANS} More in <span className="mono">docs/analytics.md</span>, “Sampled”.
      </p>
    </details>
  );
}

/** A rate with a thin bar; '—' and no bar while nothing was reported. */
export function RateCell({ rate }: { rate: number | null }) {
  return (
    <span className="rate-cell">
      {rate === null ? null : (
        <span className="rate-track" aria-hidden="true">
          <span className="rate-fill" style={{ width: `${rate * 100}%` }} />
        </span>
      )}
      <span>{formatRate(rate)}</span>
    </span>
  );
}

import { z } from 'zod';

/**
 * Per-platform "this item is gone" signals for destination health (issue #33): where a platform answers
 * 200 for a page whose item was removed (YouTube shows "Video unavailable" on a 200), its oEmbed endpoint
 * says it plainly. Data beside the platform table, with where each fact comes from and when it was read;
 * validated when the service starts (and by test/core/health.test.ts).
 */

export interface GoneSignal {
  /** The platform table's key. */
  platform: string;
  /** Hosts (lower case) of the destinations this signal covers. */
  hosts: string[];
  /** What to ask instead of the page: `{url}` is the destination, URL-encoded. */
  probe: string;
  /** The probe's statuses that mean the item is gone (a failed check); 2xx means it is there. */
  gone: number[];
  source: string;
  /** YYYY-MM-DD the source was read. */
  checked: string;
}

export const GONE_SIGNALS: readonly GoneSignal[] = [
  {
    platform: 'youtube',
    hosts: ['www.youtube.com', 'youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtu.be'],
    probe: 'https://www.youtube.com/oembed?format=json&url={url}',
    // 404 for a removed or never-existing video; 401 (private, embedding off) is the owner's choice, not gone.
    gone: [404],
    source: 'https://oembed.com/ (YouTube provider entry); https://www.youtube.com/oembed',
    checked: '2026-11-29',
  },
  {
    platform: 'vimeo',
    hosts: ['vimeo.com', 'www.vimeo.com', 'player.vimeo.com'],
    probe: 'https://vimeo.com/api/oembed.json?url={url}',
    gone: [404],
    source: 'https://developer.vimeo.com/api/oembed/videos ("404 Not Found: the video does not exist")',
    checked: '2026-11-29',
  },
];

const signalSchema = z
  .object({
    platform: z.string().min(1),
    hosts: z.array(z.string().regex(/^[a-z0-9.-]+$/, 'hosts are lower-case host names')).min(1),
    probe: z
      .string()
      .url()
      .refine((probe) => probe.startsWith('https://') && probe.includes('{url}'), 'an https URL with {url}'),
    gone: z.array(z.number().int().min(400).max(599)).min(1),
    source: z.string().min(1),
    checked: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  })
  .strict();

/** Throws with the first problem when a signal is malformed (checked at start). */
export function validateGoneSignals(signals: readonly GoneSignal[]): readonly GoneSignal[] {
  z.array(signalSchema).parse(signals);
  return signals;
}

/** The probe for a destination, or null when no signal covers its host. */
export function probeFor(
  signals: readonly GoneSignal[],
  destination: string,
): { url: string; gone: readonly number[] } | null {
  let host: string;
  try {
    host = new URL(destination).hostname.toLowerCase();
  } catch {
    return null;
  }
  const signal = signals.find((candidate) => candidate.hosts.includes(host));
  if (!signal) return null;
  return { url: signal.probe.replace('{url}', encodeURIComponent(destination)), gone: signal.gone };
}

import type { CreateLinkInput, Link } from '../../api/types';
import type { FieldErrors } from './editor-errors';

/**
 * The editor's form model: every writable Link field (hosted-service.md section 2) as the strings and
 * rows a person types, plus the two conversions: a Link into a form, and a form into the API body.
 */

export const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;
export type UtmKey = (typeof UTM_KEYS)[number];
export const DEVICE_KEYS = ['ios', 'android', 'desktop'] as const;
export type DeviceKey = (typeof DEVICE_KEYS)[number];

export interface GeoRow {
  key: number;
  country: string;
  url: string;
}
export interface AbRow {
  key: number;
  u: string;
  w: string;
}
export interface SchedRow {
  key: number;
  /** A `datetime-local` value, in the browser's time zone. */
  from: string;
  url: string;
}

export interface LinkForm {
  url: string;
  slug: string;
  hostname: string;
  tags: string[];
  folderId: string;
  pixelIds: string[];
  captureEmails: boolean;
  utm: Record<UtmKey, string>;
  devices: Record<DeviceKey, string>;
  geo: GeoRow[];
  ab: AbRow[];
  /** A/B auto-promote, as typed: no rule while `abMinVisits` is blank. */
  abMinVisits: string;
  abConfidence: string;
  sched: SchedRow[];
  /** keep: leave the stored password alone; set: send `password`; remove: send `password: null`. */
  passwordMode: 'keep' | 'set' | 'remove';
  password: string;
  /** Campaign end (issue #20): a `datetime-local` value, a click limit as typed, where visits go after. */
  expiresAt: string;
  maxClicks: string;
  expiredUrl: string;
  publicStats: boolean;
  /** Destination health (issue #33): where visits go while the destination is down; blank: none. */
  fallbackUrl: string;
}

/** Merges a change into the form: the one way the editor's cards write to it. */
export type UpdateForm = (change: Partial<LinkForm>) => void;

/** What each card of the editor gets: the form, the way to change it, and the last save's errors. */
export interface EditorCardProps {
  form: LinkForm;
  update: UpdateForm;
  errors: FieldErrors;
}

let nextKey = 1;
/** A stable React key for a new row. */
export const rowKey = (): number => nextKey++;

/** `rows` with the row keyed `key` changed; the others stay the same objects. */
export function withRowChanged<Row extends { key: number }>(
  rows: Row[],
  key: number,
  change: Partial<Row>,
): Row[] {
  return rows.map((row) => (row.key === key ? { ...row, ...change } : row));
}

/** `rows` without the row keyed `key`. */
export function withoutRow<Row extends { key: number }>(rows: Row[], key: number): Row[] {
  return rows.filter((row) => row.key !== key);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Epoch seconds → `YYYY-MM-DDTHH:mm` in local time, for `<input type="datetime-local">`. */
export function toLocalInput(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value (local time) → epoch seconds, or null when blank or unreadable. */
export function fromLocalInput(value: string): number | null {
  if (!value) return null;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

export function emptyForm(): LinkForm {
  return {
    url: '',
    slug: '',
    hostname: '',
    tags: [],
    folderId: '',
    pixelIds: [],
    captureEmails: false,
    utm: { source: '', medium: '', campaign: '', term: '', content: '' },
    devices: { ios: '', android: '', desktop: '' },
    geo: [],
    ab: [],
    abMinVisits: '',
    abConfidence: '0.95',
    sched: [],
    passwordMode: 'keep',
    password: '',
    expiresAt: '',
    maxClicks: '',
    expiredUrl: '',
    publicStats: false,
    fallbackUrl: '',
  };
}

export function formFromLink(link: Link): LinkForm {
  const form = emptyForm();
  form.url = link.destination;
  form.slug = link.slug;
  form.hostname = link.hostname ?? '';
  form.tags = [...link.tags];
  form.folderId = link.folderId ?? '';
  form.pixelIds = [...link.pixelIds];
  form.captureEmails = link.captureEmails;
  for (const key of UTM_KEYS) form.utm[key] = link.utm?.[key] ?? '';
  for (const key of DEVICE_KEYS) form.devices[key] = link.routing?.[key] ?? '';
  form.geo = Object.entries(link.routing?.geo ?? {}).map(([country, url]) => ({
    key: rowKey(),
    country,
    url,
  }));
  form.ab = (link.ab ?? []).map((v) => ({ key: rowKey(), u: v.u, w: String(v.w) }));
  form.abMinVisits = link.abAutoPromote ? String(link.abAutoPromote.minVisits) : '';
  form.abConfidence = String(link.abAutoPromote?.confidence ?? 0.95);
  form.sched = (link.sched ?? []).map((s) => ({ key: rowKey(), from: toLocalInput(s.from), url: s.url }));
  form.expiresAt = link.expiresAt ? toLocalInput(Date.parse(link.expiresAt) / 1000) : '';
  form.maxClicks = link.maxClicks === null ? '' : String(link.maxClicks);
  form.expiredUrl = link.expiredUrl ?? '';
  form.publicStats = link.publicStats;
  form.fallbackUrl = link.fallbackUrl ?? '';
  return form;
}

type Body = Omit<CreateLinkInput, 'url'> & { url?: string };

/** The value each field sends; `null` where the form is empty (which clears it on PATCH). */
function bodyOf(form: LinkForm): Required<Omit<Body, 'password'>> {
  const utmEntries = UTM_KEYS.map((key) => [key, form.utm[key].trim()] as const).filter(([, v]) => v !== '');
  const devices = DEVICE_KEYS.map((key) => [key, form.devices[key].trim()] as const).filter(
    ([, v]) => v !== '',
  );
  const geoRows = form.geo.filter((row) => row.country.trim() !== '' || row.url.trim() !== '');
  const geo = Object.fromEntries(geoRows.map((row) => [row.country.trim().toUpperCase(), row.url.trim()]));
  const routing =
    devices.length > 0 || geoRows.length > 0
      ? { ...Object.fromEntries(devices), ...(geoRows.length > 0 ? { geo } : {}) }
      : null;
  return {
    url: form.url.trim(),
    slug: form.slug.trim(),
    hostname: form.hostname.trim() === '' ? null : form.hostname.trim(),
    tags: form.tags.length > 0 ? form.tags : null,
    folderId: form.folderId === '' ? null : form.folderId,
    pixelIds: form.pixelIds.length > 0 ? form.pixelIds : null,
    captureEmails: form.captureEmails,
    utm: utmEntries.length > 0 ? Object.fromEntries(utmEntries) : null,
    routing,
    ab:
      form.ab.length > 0
        ? form.ab.map((row) => ({ u: row.u.trim(), w: row.w.trim() === '' ? 0 : Number(row.w) }))
        : null,
    // Numbers as typed (a wrong one goes as is, so the server names the field); none without variants.
    abAutoPromote:
      form.ab.length > 0 && form.abMinVisits.trim() !== ''
        ? { minVisits: Number(form.abMinVisits), confidence: Number(form.abConfidence) }
        : null,
    sched:
      form.sched.length > 0
        ? form.sched.map((row) => ({ from: fromLocalInput(row.from) ?? -1, url: row.url.trim() }))
        : null,
    expiresAt: expiresAtOf(form.expiresAt),
    // A limit that is not a whole number is sent as typed, so the server names the field.
    maxClicks: form.maxClicks.trim() === '' ? null : Number(form.maxClicks),
    expiredUrl: form.expiredUrl.trim() === '' ? null : form.expiredUrl.trim(),
    publicStats: form.publicStats,
    fallbackUrl: form.fallbackUrl.trim() === '' ? null : form.fallbackUrl.trim(),
  };
}

/** A `datetime-local` end date as the API's ISO 8601 (UTC); unreadable text goes as typed for the server. */
function expiresAtOf(value: string): string | null {
  if (value.trim() === '') return null;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : value;
}

/**
 * The body to send: every field whose value differs from `initial` (for a new link, the empty form),
 * so a PATCH carries only what changed and `null` clears. The slug is never sent blank.
 */
export function changedBody(initial: LinkForm, form: LinkForm, creating: boolean): Body {
  const before = bodyOf(initial);
  const after = bodyOf(form);
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof typeof after)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) body[key] = after[key];
  }
  if (creating) body.url = after.url;
  if (body.slug === '') delete body.slug;
  if (form.passwordMode === 'set') body.password = form.password;
  if (form.passwordMode === 'remove') body.password = null;
  return body as Body;
}

/** Problems the browser can name before the server is asked (a schedule row needs a date). */
export function localErrors(form: LinkForm): Record<string, string> {
  const errors: Record<string, string> = {};
  form.sched.forEach((row, index) => {
    if (fromLocalInput(row.from) === null)
      errors[`sched.${index}.from`] = 'Pick the date and time this URL starts';
  });
  const seen = new Set<string>();
  for (const row of form.geo) {
    const code = row.country.trim().toUpperCase();
    if (code === '' && row.url.trim() !== '') errors[`geo-row.${row.key}`] = 'Add a 2-letter country code';
    else if (seen.has(code)) errors[`geo-row.${row.key}`] = `${code} already has a row`;
    seen.add(code);
  }
  if (form.passwordMode === 'set' && form.password === '')
    errors.password = 'Type the password visitors will need';
  return errors;
}

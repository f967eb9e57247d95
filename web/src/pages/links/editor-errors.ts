import { ApiError } from '../../api/client';
import { linkErrorMessage } from './common';

/**
 * The link editor's errors: the API's issue keys (`utm.source`, `ab.1.u`, `routing.geo.DE`) and the
 * browser's own (`geo-row.<key>`), read by the field that shows each one.
 */

/** The keys some field of the editor shows; any other key is listed in the banner, so none is lost. */
const FIELD_KEY =
  /^(url|slug|hostname|tags(\.\d+)?|folderId|pixelIds(\.\d+)?|captureEmails|utm\.\w+|routing\.(ios|android|desktop)|routing\.geo(\..+)?|ab(\.\d+\.[uw])?|sched(\.\d+\.(from|url))?|password|expiresAt|maxClicks|expiredUrl|publicStats|fallbackUrl|geo-row\.\d+)$/;

/** One save attempt's errors, as the fields ask for them. */
export interface FieldErrors {
  /** The message for exactly `key`. */
  of(key: string): string | undefined;
  /** True when `prefix` itself or a key below it (`utm.source` below `utm`) has a message. */
  under(prefix: string): boolean;
  /** Every key with its message. */
  entries: [string, string][];
  /** The keys no field shows, for the banner. */
  stray: [string, string][];
}

export function fieldErrors(errors: Record<string, string>): FieldErrors {
  const entries = Object.entries(errors);
  return {
    of: (key) => errors[key],
    under: (prefix) => entries.some(([key]) => key === prefix || key.startsWith(`${prefix}.`)),
    entries,
    stray: entries.filter(([key]) => !FIELD_KEY.test(key)),
  };
}

/** The API's issues keyed for the form: geo keys that are not countries get a sentence a person can act on. */
function issuesOf(error: ApiError): Record<string, string> {
  const out = error.fieldErrors();
  for (const key of Object.keys(out)) {
    if (key === 'url' && out[key]?.startsWith('`url`')) {
      out[key] = 'The destination must be a full http(s) URL, e.g. https://example.com/page';
    }
    if (key === 'expiredUrl' && out[key]?.startsWith('expiredUrl is required')) {
      out[key] = 'Add the address visitors go to once the end date or the click limit is reached';
    }
    if (key === 'fallbackUrl' && out[key]?.startsWith('fallbackUrl must be')) {
      out[key] = 'The fallback URL must be a full http(s) URL, e.g. https://example.com/similar-item';
    }
    if (key.startsWith('routing.geo.') && out[key] === 'Invalid key in record') {
      out[key] = 'Use a 2-letter country code in capitals, e.g. US or GB';
    }
  }
  return out;
}

/** Where a refused save is explained: at the fields, in the routing card (a conflict), or in the banner. */
export interface SaveFailure {
  errors: Record<string, string>;
  conflict?: string;
  failure?: string;
}

export function saveFailureOf(error: unknown): SaveFailure {
  if (error instanceof ApiError && error.body.issues) return { errors: issuesOf(error) };
  if (error instanceof ApiError && error.code === 'slug_taken')
    return { errors: { slug: 'This slug is already taken. Pick another one.' } };
  if (error instanceof ApiError && error.code === 'ab_routing_conflict')
    return {
      errors: {},
      conflict:
        'A link cannot have both A/B variants and routing. Remove the A/B variants, or clear device and country routing.',
    };
  return { errors: {}, failure: linkErrorMessage(error) };
}

import type { Feature } from './tenancy/plans.js';
import { featureCode } from './tenancy/plans.js';

/**
 * The hosted service's error catalogue: code -> status and default message. Services throw AppError;
 * only the HTTP error handler turns one into the spec's body `{error, message, issues?, retryAfter?}`.
 */
export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, message: 'The request body is not valid JSON' },
  invalid_body: { status: 400, message: 'The request body is invalid' },
  invalid_query: { status: 400, message: 'The query parameters are invalid' },
  ab_routing_conflict: { status: 400, message: 'A link cannot have both A/B variants and routing' },
  unknown_variant: { status: 400, message: 'The A/B test has no such variant' },
  invalid_handle: { status: 400, message: 'The handle is invalid' },
  invalid_blocks: { status: 400, message: 'The block list is invalid' },
  unknown_link: { status: 400, message: 'A block references a link that does not exist' },
  invalid_webhook_url: { status: 400, message: 'The webhook URL is refused' },
  unknown_domain: { status: 400, message: 'The hostname is not a verified domain of this organization' },
  sso_failed: { status: 400, message: 'The single sign-on did not complete; start it again' },
  unauthorized: { status: 401, message: 'A valid API key is required' },
  unauthenticated: { status: 401, message: 'Log in first' },
  invalid_credentials: { status: 401, message: 'The email or password is wrong' },
  forbidden: { status: 403, message: 'This request is not allowed' },
  forbidden_role: { status: 403, message: 'Your role in this organization does not allow this' },
  forbidden_scope: { status: 403, message: 'This API key’s scopes do not allow this' },
  feature_disabled: { status: 403, message: 'This feature is switched off on this service' },
  read_only: { status: 403, message: 'This link is read-only: the plan is over its link cap' },
  csrf: { status: 403, message: 'Cross-site request refused' },
  sso_required: {
    status: 403,
    message: 'This organization signs its members in with single sign-on: use “Sign in with SSO”',
  },
  sso_refused: { status: 403, message: 'Single sign-on cannot let this person in' },
  not_found: { status: 404, message: 'Not found' },
  no_bio_page: { status: 404, message: 'Create a bio page first' },
  no_ab_test: { status: 404, message: 'This link has no A/B test' },
  slug_taken: { status: 409, message: 'This slug is already taken' },
  ab_not_running: { status: 409, message: 'This link has no running A/B test' },
  handle_taken: { status: 409, message: 'This handle is already taken' },
  email_taken: { status: 409, message: 'An account with this email already exists' },
  last_owner: {
    status: 409,
    message: 'An organization keeps at least one owner: make someone else owner first',
  },
  only_organization: {
    status: 409,
    message: 'This is your only organization: delete your account in Settings instead',
  },
  already_member: { status: 409, message: 'This person is already a member of the organization' },
  domain_taken: { status: 409, message: 'This hostname belongs to another organization' },
  domain_unverified: { status: 409, message: 'The TXT record that proves ownership was not found' },
  sso_domain_taken: {
    status: 409,
    message: 'Another organization already signs in people of this email domain',
  },
  domain_in_use: { status: 409, message: 'Links use this domain; move them to another hostname first' },
  link_cap_reached: { status: 403, message: 'The plan’s live link cap is reached' },
  too_many_webhooks: { status: 409, message: 'An organization can have at most 5 webhooks' },
  too_many_keys: {
    status: 409,
    message: 'An organization can have at most 20 active API keys; revoke one first',
  },
  unsupported_media_type: { status: 415, message: 'Send JSON with content-type: application/json' },
  payload_too_large: { status: 413, message: 'The request body is too large' },
  too_many_rows: { status: 413, message: 'The file has more rows than one import takes' },
  too_deep: { status: 400, message: 'The request body nests deeper than 64 levels' },
  rate_limited: { status: 429, message: 'Too many requests' },
  too_many_imports: {
    status: 429,
    message: 'This organization has too many imports queued or running; wait for one to finish',
  },
  too_many_bulk_actions: {
    status: 429,
    message: 'This organization has 3 bulk actions queued or running; wait for one to finish',
  },
  too_many_invites: {
    status: 429,
    message: 'This organization has sent too many invites; try again later or revoke pending ones',
  },
  internal_error: { status: 500, message: 'Something went wrong on our side' },
  not_provisioned: { status: 503, message: 'A required secret or app setting is not provisioned' },
  unavailable: { status: 503, message: 'The database is unavailable; try again shortly' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ErrorBody {
  error: string;
  message: string;
  issues?: unknown[];
  retryAfter?: number;
  [extra: string]: unknown;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: string,
    status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = status;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

/** An error from the catalogue, with an optional sharper message and extra body fields. */
export function appError(code: ErrorCode, message?: string, extra?: Record<string, unknown>): AppError {
  const entry = ERROR_CATALOGUE[code];
  return new AppError(code, entry.status, message ?? entry.message, extra);
}

/** 403 naming the missing feature in snake_case, as decisions.md says (`ab_testing`, `bulk_create`...). */
export function featureError(feature: Feature): AppError {
  return new AppError(featureCode(feature), 403, `Your plan does not include ${feature}; upgrade to use it`);
}

/**
 * The error answers of the fake provider: every code and subcode of social-provider.md 7.2, named by
 * the token our client maps it to, in the Graph error envelope's terms.
 */

export interface GraphErrorSample {
  status: number;
  code: number;
  subcode?: number;
  message: string;
}

/** Every error of the reference's table (7.2), by the token we map it to. */
export const PROVIDER_ERRORS = {
  token_expired: {
    status: 400,
    code: 190,
    subcode: 463,
    message: 'Error validating access token: Session has expired',
  },
  token_revoked: { status: 400, code: 190, subcode: 460, message: 'The session has been invalidated' },
  app_removed: { status: 400, code: 190, subcode: 458, message: 'The user has not authorized application' },
  token_invalid: { status: 400, code: 190, message: 'Invalid OAuth access token' },
  session_key_invalid: { status: 400, code: 102, message: 'Session key invalid' },
  outside_24h_window: {
    status: 400,
    code: 10,
    subcode: 2534022,
    message: '(#10) This message is sent outside of allowed window.',
  },
  permission_missing: {
    status: 403,
    code: 10,
    message: 'Application does not have permission for this action',
  },
  permission_2xx: { status: 403, code: 230, message: 'Permissions error' },
  capability_missing: {
    status: 400,
    code: 3,
    message: 'Application does not have the capability to make this API call.',
  },
  recipient_unavailable: {
    status: 400,
    code: 551,
    subcode: 1545041,
    message: 'This person isn’t available right now.',
  },
  recipient_refuses: {
    status: 400,
    code: 10,
    subcode: 2018108,
    message: 'This person cannot receive messages',
  },
  recipient_not_found: {
    status: 400,
    code: 100,
    subcode: 2534014,
    message: 'The requested user cannot be found',
  },
  private_reply_unavailable: {
    status: 400,
    code: 100,
    subcode: 2534025,
    message: 'The comment is invalid for a private reply',
  },
  object_not_found: { status: 400, code: 100, subcode: 33, message: 'Unsupported post request.' },
  invalid_request: { status: 400, code: 100, message: '(#100) Invalid parameter' },
  app_rate: { status: 400, code: 4, message: '(#4) Application request limit reached' },
  user_rate: { status: 400, code: 17, message: '(#17) User request limit reached' },
  page_rate: { status: 400, code: 32, message: '(#32) Page request limit reached' },
  endpoint_rate: {
    status: 400,
    code: 613,
    message: '(#613) Calls to this api have exceeded the rate limit.',
  },
  account_rate: {
    status: 400,
    code: 80002,
    message: 'There have been too many calls to this Instagram account.',
  },
  app_limit: { status: 400, code: 341, message: 'Application limit reached' },
  blocked: {
    status: 400,
    code: 368,
    subcode: 1390008,
    message: 'The action attempted has been deemed abusive',
  },
  unknown: { status: 500, code: 1, message: 'An unknown error has occurred.' },
  unavailable: { status: 503, code: 2, message: 'Service temporarily unavailable' },
} satisfies Record<string, GraphErrorSample>;

/** The engine's error catalogue: the exact texts of self-hosted-engine.md section 7, keyed by a code. */
export const ENGINE_ERRORS = {
  invalid_json: { status: 400, text: 'Invalid JSON body' },
  invalid_url: { status: 400, text: '`url` must be a valid http(s) URL' },
  invalid_slug: { status: 400, text: '`slug` must match [a-zA-Z0-9-_]{1,32}' },
  unauthorized: { status: 401, text: 'Unauthorized' },
  not_found: { status: 404, text: 'Not found' },
  method_not_allowed: { status: 405, text: 'Method not allowed' },
  slug_taken: { status: 409, text: 'Slug already taken' },
} as const;

export type EngineErrorCode = keyof typeof ENGINE_ERRORS;

export class EngineError extends Error {
  readonly status: number;
  constructor(readonly code: EngineErrorCode) {
    super(ENGINE_ERRORS[code].text);
    this.name = 'EngineError';
    this.status = ENGINE_ERRORS[code].status;
  }

  /** The spec's body: JSON with a single `error` string. */
  toBody(): { error: string } {
    return { error: this.message };
  }
}

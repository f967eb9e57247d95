import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, appError } from '../errors.js';
import { isConnectionError } from '../store/db-errors.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './retry-after.js';
import { formatBytes, plainValidationMessage } from './validation-messages.js';

export { UNAVAILABLE_RETRY_AFTER_SECONDS } from './retry-after.js';

interface ValidationEntry {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/** Zod's issues as Zod wrote them: the type provider flattens them, this puts them back. */
function zodIssues(validation: ValidationEntry[]) {
  return validation.map((entry) => ({
    code: entry.keyword,
    path: entry.instancePath
      .split('/')
      .filter(Boolean)
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
    message: entry.message,
    ...entry.params,
  }));
}

/**
 * Maps anything thrown to the spec's error body; a stack trace never leaves the process. `bodyLimit` is the
 * route's, so that a 413 says what the limit is.
 */
export function toAppError(error: unknown, request?: { bodyLimit?: number | undefined }): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext;
    const issues = zodIssues(error.validation as unknown as ValidationEntry[]);
    return appError(context === 'body' ? 'invalid_body' : 'invalid_query', plainValidationMessage(issues), {
      issues,
    });
  }
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return appError('invalid_json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return appError(
        'payload_too_large',
        request?.bodyLimit
          ? `The request body is larger than the ${formatBytes(request.bodyLimit)} limit`
          : undefined,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return appError('unsupported_media_type');
  }
  if (error instanceof SyntaxError) return appError('invalid_json');
  // The database is away (refused, reset, terminated, timed out): a 503 to retry, never a 500.
  if (isConnectionError(error)) {
    return appError('unavailable', undefined, { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS });
  }
  return appError('internal_error');
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  const body = error.toBody();
  if (typeof body.retryAfter === 'number') reply.header('retry-after', String(body.retryAfter));
  return reply.code(error.status).type('application/json; charset=utf-8').send(body);
}

export function hostedErrorHandler(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const appErr = toAppError(error, { bodyLimit: request.routeOptions.bodyLimit });
  // An outage is logged once by the pool's health tracker, not once per request that met it.
  if (appErr.status >= 500 && appErr.code !== 'unavailable')
    request.log.error({ err: error }, 'request failed');
  return sendError(reply, appErr);
}

import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { appError } from '../errors.js';
import { CONTROL_MESSAGE, hasForbiddenControl } from '../http/edge-text.js';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { formatBytes } from '../http/validation-messages.js';
import { createdImportSchema, createImportBody, importListSchema, importSchema } from './schema.js';
import type { ImportService } from './service.js';

/** A CSV of up to 10,000 links (8 MB of text): the import route takes bodies beyond the app's 1 MB default. */
const IMPORT_BODY_LIMIT = 10 * 1024 * 1024;

/** What a 415 on POST /imports says: the three shapes of a CSV import it takes. */
export const IMPORT_SHAPES =
  'Send JSON ({"source":"csv","csv":"…"}), text/csv, or multipart/form-data with a file part';

const FILE_PART_MESSAGE = 'Send the CSV file in a form part named `file` (curl -F file=@links.csv)';

function fileError(message: string) {
  return appError('invalid_body', message, { issues: [{ code: 'custom', path: ['file'], message }] });
}

/** A multipart failure in the spec's terms: too big is a 413 saying the limit, anything else a 400. */
function multipartError(error: unknown) {
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE')
    return appError(
      'payload_too_large',
      `The file is larger than the ${formatBytes(IMPORT_BODY_LIMIT)} limit`,
    );
  if (code === 'FST_FILES_LIMIT') return fileError(`Send one file: ${FILE_PART_MESSAGE}`);
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
    return appError('payload_too_large', `The form has too many parts: ${FILE_PART_MESSAGE}`);
  return appError(
    'invalid_body',
    'The multipart/form-data body cannot be read: send it as curl -F file=@links.csv does',
  );
}

/**
 * The text of the form's `file` part (other parts are read and dropped). The root's text rule ran before
 * the file was read, so it is applied here, as a JSON body's `csv` has it: line breaks pass, other
 * control characters do not.
 */
async function csvOfForm(request: FastifyRequest): Promise<string> {
  let csv: string | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      const bytes = await part.toBuffer();
      if (part.fieldname === 'file' && csv === undefined) csv = bytes.toString('utf8');
    }
  } catch (error) {
    throw multipartError(error);
  }
  if (csv === undefined) throw fileError(`No file part: ${FILE_PART_MESSAGE}`);
  if (csv.length === 0) throw fileError('The file is empty');
  if (hasForbiddenControl(csv, true)) throw fileError(CONTROL_MESSAGE);
  return csv;
}

/** /v1/imports (and the dashboard's /api twin): start an import, follow its progress. */
export async function importRoutes(
  app: FastifyInstance,
  deps: { imports: ImportService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { imports } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['imports'];

  // A CSV import as a file (this plugin's routes only): the file itself as the body
  // (curl --data-binary @links.csv -H 'content-type: text/csv'), or a form's `file` part
  // (curl -F file=@links.csv). Both become the JSON body `{source: 'csv', csv}` before validation.
  app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) =>
    done(null, { source: 'csv', csv: body }),
  );
  await app.register(multipart, {
    limits: { fileSize: IMPORT_BODY_LIMIT, files: 1, fields: 10, fieldSize: 1024, parts: 11 },
  });
  // Any other content type is refused naming the shapes that work (Fastify's own text/plain included).
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', (_request, _payload, done) =>
    done(appError('unsupported_media_type', IMPORT_SHAPES), undefined),
  );

  r.post(
    '/imports',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      preValidation: async (request) => {
        if (request.isMultipart()) request.body = { source: 'csv', csv: await csvOfForm(request) };
        else if (request.body === undefined && /^text\/csv\b/i.test(request.headers['content-type'] ?? ''))
          throw fileError('The CSV is empty: send the file as the body');
      },
      config: { permission: 'links:write' },
      schema: {
        operationId: op('createImport'),
        summary: 'Start importing links from another shortener or a CSV file',
        tags,
        description:
          'Queues an import from a CSV, Bitly, Shlink, Kutt, Dub or YOURLS and answers 202 with its id; ' +
          'follow it with GET /imports/{id}. Slugs, verified custom hostnames, tags, titles and creation ' +
          'dates are kept; a slug already taken is skipped with its reason, and a re-run imports nothing twice. ' +
          'A CSV takes at most 10,000 rows (413 too_many_rows); an organization has at most 3 imports queued ' +
          'or running (429 too_many_imports). A CSV may also come as the file itself with ' +
          '`content-type: text/csv`, or as the `file` part of a `multipart/form-data` body (on /v1: the ' +
          "dashboard's /api twin takes JSON only); any other content type is 415 unsupported_media_type.",
        body: createImportBody,
        response: { 202: createdImportSchema, ...errorResponses(400, 413) },
      },
    },
    async (request, reply) => reply.code(202).send(await imports.start(orgOf(request), request.body)),
  );

  r.get(
    '/imports',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('listImports'),
        summary: 'List recent imports',
        tags,
        description: 'The 20 most recent imports, newest first.',
        response: { 200: importListSchema, ...errorResponses() },
      },
    },
    async (request) => imports.list(orgOf(request)),
  );

  r.get(
    '/imports/:id',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('getImport'),
        summary: "Get an import's progress and errors",
        tags,
        params: idParams,
        response: { 200: importSchema, ...errorResponses(404) },
      },
    },
    async (request) => imports.get(orgOf(request), request.params.id),
  );
}

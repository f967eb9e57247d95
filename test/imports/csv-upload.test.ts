import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_SHAPES } from '../../src/imports/routes.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/**
 * POST /v1/imports with a CSV file as people send one (issue #32, item 7): the file as the body with
 * `content-type: text/csv`, or a form's `file` part, each sent by curl itself over real HTTP.
 */

const dir = mkdtempSync(join(tmpdir(), 'linkhop-csv-upload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** curl's answer: status and body, read from its `-w` trailer. Asynchronous: the server is this process. */
function curl(args: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      ['-sS', '-w', '\n%{http_code}', ...args],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`curl failed: ${stderr || String(error)}`));
        const cut = stdout.lastIndexOf('\n');
        resolve({ status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) });
      },
    );
  });
}

const curlSkip = spawnSync('curl', ['--version']).status === 0 ? null : 'curl is not installed';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null || curlSkip !== null)(
    `CSV files to POST /v1/imports on ${kind.name}`,
    () => {
      let h: HostedHarness;
      let url: string;
      let apiKey: string;
      beforeAll(async () => {
        h = await startHosted(kind);
        url = await h.app.listen({ port: 0, host: '127.0.0.1' });
        ({ apiKey } = await h.org('legend'));
      });
      afterAll(async () => h?.close());

      const auth = () => ['-H', `authorization: Bearer ${apiKey}`];
      const imports = () => `${url}/v1/imports`;
      /** Waits for the worker to end the import (the test's timeout bounds the wait). */
      const ended = async (id: string) => {
        for (;;) {
          const body = (await h.v1(apiKey, { method: 'GET', url: `/v1/imports/${id}` })).json();
          if (body.status === 'done' || body.status === 'failed') return body;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      const slugs = async () =>
        (
          (await h.v1(apiKey, { method: 'GET', url: '/v1/links?limit=200' })).json().links as {
            slug: string;
          }[]
        ).map((link) => link.slug);

      it("curl --data-binary @links.csv -H 'content-type: text/csv': the file itself is the import", async () => {
        const csv = file(
          'body.csv',
          'url,slug,tags\r\nhttps://example.com/a,csv-body-a,x|y\r\nhttps://example.com/b,csv-body-b,\r\n',
        );
        const answer = await curl([
          '-X',
          'POST',
          ...auth(),
          '-H',
          'content-type: text/csv',
          '--data-binary',
          `@${csv}`,
          imports(),
        ]);
        expect(answer.status).toBe(202);
        const done = await ended(String(answer.body.id));
        expect(done).toMatchObject({ source: 'csv', status: 'done', total: 2, imported: 2, failed: 0 });
        expect(await slugs()).toEqual(expect.arrayContaining(['csv-body-a', 'csv-body-b']));
      });

      it('curl -F file=@links.csv: the form part named file is the import', async () => {
        const csv = file(
          'form.csv',
          '\uFEFFurl,slug,title\nhttps://example.com/c,csv-form-c,"Cee, quoted"\n',
        );
        const answer = await curl([...auth(), '-F', `file=@${csv}`, imports()]);
        expect(answer.status).toBe(202);
        expect(await ended(String(answer.body.id))).toMatchObject({ status: 'done', imported: 1 });
        expect(await slugs()).toContain('csv-form-c');
      });

      it('a form without a file part named file is a 400 that says how to send it', async () => {
        const csv = file('other.csv', 'url\nhttps://example.com/d\n');
        const answer = await curl([...auth(), '-F', `upload=@${csv}`, '-F', 'source=csv', imports()]);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          error: 'invalid_body',
          message: 'No file part: Send the CSV file in a form part named `file` (curl -F file=@links.csv)',
          issues: [{ path: ['file'] }],
        });
      });

      it('the JSON body keeps working beside them', async () => {
        const answer = await curl([
          ...auth(),
          '-H',
          'content-type: application/json',
          '--data',
          JSON.stringify({ source: 'csv', csv: 'url,slug\nhttps://example.com/e,csv-json-e\n' }),
          imports(),
        ]);
        expect(answer.status).toBe(202);
        expect(await ended(String(answer.body.id))).toMatchObject({ status: 'done', imported: 1 });
      });

      it('any other content type is a 415 naming the three shapes', async () => {
        const csv = file('plain.csv', 'url\nhttps://example.com/f\n');
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
          const answer = await curl([
            ...auth(),
            '-H',
            `content-type: ${type}`,
            '--data-binary',
            `@${csv}`,
            imports(),
          ]);
          expect(answer.status, type).toBe(415);
          expect(answer.body).toEqual({ error: 'unsupported_media_type', message: IMPORT_SHAPES });
        }
        expect(IMPORT_SHAPES).toBe(
          'Send JSON ({"source":"csv","csv":"…"}), text/csv, or multipart/form-data with a file part',
        );
      });

      it('the row cap holds for both: 10,001 rows are 413 too_many_rows', async () => {
        const rows = Array.from({ length: 10_001 }, (_, i) => `https://example.com/r${i}`);
        const csv = file('big.csv', `url\n${rows.join('\n')}\n`);
        const asBody = await curl([
          ...auth(),
          '-H',
          'content-type: text/csv',
          '--data-binary',
          `@${csv}`,
          imports(),
        ]);
        const asForm = await curl([...auth(), '-F', `file=@${csv}`, imports()]);
        for (const answer of [asBody, asForm]) {
          expect(answer.status).toBe(413);
          expect(answer.body.error).toBe('too_many_rows');
        }
      });

      it('the byte limit holds for both: over 10 MB is 413 payload_too_large saying the limit', async () => {
        // Through inject: over a socket the server answers 413 while curl is still sending, which curl
        // reports as a broken pipe some of the time.
        const csv = `url,title\nhttps://example.com/h,${'x'.repeat(10 * 1024 * 1024)}\n`;
        const asBody = await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/imports',
          headers: { 'content-type': 'text/csv' },
          payload: csv,
        });
        expect(asBody.statusCode).toBe(413);
        expect(asBody.json()).toEqual({
          error: 'payload_too_large',
          message: 'The request body is larger than the 10 MB limit',
        });
        const boundary = '------------------------linkhoptest';
        const form =
          `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="huge.csv"\r\n` +
          `content-type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`;
        const asForm = await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/imports',
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload: form,
        });
        expect(asForm.statusCode).toBe(413);
        expect(asForm.json()).toEqual({
          error: 'payload_too_large',
          message: 'The file is larger than the 10 MB limit',
        });
      });

      it('a control character in the file is refused as it is in a JSON csv; an empty file says so', async () => {
        const nul = file('nul.csv', 'url\nhttps://example.com/\u0000n\n');
        const asForm = await curl([...auth(), '-F', `file=@${nul}`, imports()]);
        expect(asForm.status).toBe(400);
        expect(asForm.body.message).toBe('control characters are not allowed');
        const asBody = await curl([
          ...auth(),
          '-H',
          'content-type: text/csv',
          '--data-binary',
          `@${nul}`,
          imports(),
        ]);
        expect(asBody.status).toBe(400);
        expect(asBody.body.message).toBe('csv: control characters are not allowed');
        const empty = file('empty.csv', '');
        const emptyForm = await curl([...auth(), '-F', `file=@${empty}`, imports()]);
        expect(emptyForm.status).toBe(400);
        expect(emptyForm.body.message).toBe('The file is empty');
      });

      it('other routes are unaffected: a form or a CSV to POST /v1/links is the usual 415', async () => {
        const csv = file('links.csv', 'url\nhttps://example.com/g\n');
        for (const args of [
          ['-F', `file=@${csv}`],
          ['-H', 'content-type: text/csv', '--data-binary', `@${csv}`],
        ]) {
          const answer = await curl([...auth(), ...args, `${url}/v1/links`]);
          expect(answer.status).toBe(415);
          expect(answer.body).toEqual({
            error: 'unsupported_media_type',
            message: 'Send JSON with content-type: application/json',
          });
        }
      });

      it("the dashboard's /api twin keeps to JSON: a cross-site form cannot start an import", async () => {
        const { cookie } = await h.session({ email: 'csv-form@example.com', orgName: 'Forms' });
        const csv = file('dash.csv', 'url\nhttps://example.com/i\n');
        const answer = await curl(['-H', `cookie: ${cookie}`, '-F', `file=@${csv}`, `${url}/api/imports`]);
        expect(answer.status).toBe(403);
        expect(answer.body.error).toBe('csrf');
      });
    },
  );
}

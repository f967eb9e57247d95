import { once } from 'node:events';
import { createGunzip, createGzip } from 'node:zlib';
import type { SecretBox } from '../webhooks/secret-box.js';
import { type CreateImportInput, createImportBody } from './schema.js';

/**
 * An import's parameters at rest: sealed with the secret box (credentials, a CSV's links) until the import
 * ends. They are gzipped first (a list of URLs shrinks 5 to 40 times; zlib works off the event loop), then
 * sealed in slices, one turn of the event loop each: sealing 8 MB in one call held the loop for 200 ms,
 * and so did encoding or decoding it in one piece. A CSV's text follows the JSON of the other fields as
 * is, so that no 8 MB JSON is written or parsed back. Rows written before this format (one box holding
 * the JSON input) are still read.
 */

/** Characters of text, and bytes of gzip, handled in one turn: a few milliseconds' work. */
const SLICE = 256 * 1024;
/** Marks the sliced format; a box from the secret box never starts with it. */
const SLICED = 'gz1:';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function gzipInSlices(text: string): Promise<Buffer> {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = once(gzip, 'end');
  for (let at = 0; at < text.length; at += SLICE) {
    if (!gzip.write(text.slice(at, at + SLICE), 'utf8')) await once(gzip, 'drain');
    await turn();
  }
  gzip.end();
  await ended;
  return Buffer.concat(out);
}

export async function sealParams(box: SecretBox, input: CreateImportInput, id: string): Promise<string> {
  const { csv, ...rest } = { csv: '', ...input };
  const zipped = await gzipInSlices(`${JSON.stringify(rest)}\n${csv}`);
  const boxes: string[] = [];
  for (let at = 0, index = 0; at < zipped.length; at += SLICE, index++) {
    const slice = zipped.subarray(at, at + SLICE).toString('base64');
    // The slice's place is bound in: slices cannot be reordered or moved to another import.
    boxes.push(box.encrypt(slice, `${id}#${index}`));
    await turn();
  }
  return `${SLICED}${boxes.join(',')}`;
}

async function gunzipSlices(box: SecretBox, boxes: string[], id: string): Promise<string> {
  const gunzip = createGunzip();
  gunzip.setEncoding('utf8');
  const out: string[] = [];
  gunzip.on('data', (chunk: string) => out.push(chunk));
  const ended = once(gunzip, 'end');
  for (const [index, sealed] of boxes.entries()) {
    const slice = Buffer.from(box.decrypt(sealed, `${id}#${index}`), 'base64');
    if (!gunzip.write(slice)) await once(gunzip, 'drain');
    await turn();
  }
  gunzip.end();
  await ended;
  return out.join('');
}

/** The parameters, or null when they cannot be read (the secret was replaced, or the row was altered). */
export async function openParams(
  box: SecretBox,
  sealed: string | null,
  id: string,
): Promise<CreateImportInput | null> {
  try {
    if (sealed === null) return null;
    if (!sealed.startsWith(SLICED)) return createImportBody.parse(JSON.parse(box.decrypt(sealed, id)));
    const plain = await gunzipSlices(box, sealed.slice(SLICED.length).split(','), id);
    // JSON.stringify writes no raw line break: the first one ends the JSON.
    const split = plain.indexOf('\n');
    const rest = JSON.parse(plain.slice(0, split)) as { source?: unknown };
    const csv = rest.source === 'csv' ? { csv: plain.slice(split + 1) } : {};
    return createImportBody.parse({ ...rest, ...csv });
  } catch {
    return null;
  }
}

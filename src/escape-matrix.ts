import { readFileSync } from 'node:fs';
import { createEscapeMatrix, type EscapeMatrix, parseEscapeMatrixFile } from './core/escape/index.js';

/**
 * The built-in escape matrix with the deployment's ESCAPE_MATRIX_FILE merged over it, read and validated
 * once at start, like PLATFORMS_FILE. A bad file stops the start with every problem listed by row and
 * field, never a half-loaded matrix.
 */
export function loadEscapeMatrix(escapeMatrixFile: string | undefined): EscapeMatrix {
  if (!escapeMatrixFile) return createEscapeMatrix();
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(escapeMatrixFile, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`ESCAPE_MATRIX_FILE ${escapeMatrixFile}: cannot read it as JSON (${reason})`);
  }
  return createEscapeMatrix(parseEscapeMatrixFile(json));
}

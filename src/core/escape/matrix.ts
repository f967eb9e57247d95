import type { InAppKey } from '../visitor.js';
import { ANDROID_CELLS } from './builtin-android.js';
import { IOS_CELLS } from './builtin-ios.js';
import { type CellOs, cellIndexKey, type EscapeCell, type EscapeMatrix } from './types.js';

/** The built-in rows: one per in-app browser (and the real browser) per OS, for every platform. */
export const BUILTIN_ESCAPE_CELLS: readonly EscapeCell[] = [...IOS_CELLS, ...ANDROID_CELLS];

/**
 * The built-in rows with `overrides` (ESCAPE_MATRIX_FILE, already validated) merged over them by cell:
 * an override of an existing cell replaces it in place, a new cell (a platform-specific row) is added.
 */
export function createEscapeMatrix(overrides: readonly EscapeCell[] = []): EscapeMatrix {
  const byKey = new Map<string, EscapeCell>();
  for (const row of [...BUILTIN_ESCAPE_CELLS, ...overrides]) {
    byKey.set(cellIndexKey(row.inApp, row.os, row.platform), Object.freeze({ ...row }));
  }
  return { rows: [...byKey.values()], byKey };
}

export const BUILTIN_ESCAPE_MATRIX: EscapeMatrix = createEscapeMatrix();

/**
 * The most specific row for a visit: the in-app browser on this OS for this platform, then for every
 * platform, then the unnamed-webview rows. The built-in rows cover the browser and `other_webview` on
 * both systems, and overrides only replace rows, so a cell is always found.
 */
export function lookupCell(
  inApp: InAppKey | null,
  os: CellOs,
  platformKey: string,
  matrix: EscapeMatrix = BUILTIN_ESCAPE_MATRIX,
): EscapeCell {
  const { byKey } = matrix;
  const found =
    byKey.get(cellIndexKey(inApp, os, platformKey)) ??
    byKey.get(cellIndexKey(inApp, os, '*')) ??
    (inApp === null
      ? undefined
      : (byKey.get(cellIndexKey('other_webview', os, platformKey)) ??
        byKey.get(cellIndexKey('other_webview', os, '*'))));
  if (found === undefined) throw new Error(`escape matrix has no ${inApp ?? 'browser'} row for ${os}`);
  return found;
}

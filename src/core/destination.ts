import type { EscapeMatrix } from './escape/index.js';
import type { AppTarget, PlatformTable, TargetOptions } from './platforms/index.js';
// Not the platforms/ index, which also carries PLATFORMS_FILE's Zod schema (the engine idles without Zod).
import { appTargetFor } from './platforms/targets.js';

/** What a visit needs of a link, computed once when the link is loaded, never per request. */
export interface CompiledDestination {
  /** The destination as an ASCII-safe absolute URL, ready for a Location header. */
  location: string;
  /** The native-app hand-off for this destination, or null when no platform's app can open it. */
  target: AppTarget | null;
  /** The deployment's escape matrix (ESCAPE_MATRIX_FILE over the built-in rows); absent: the built-in one. */
  matrix?: EscapeMatrix;
}

export interface CompileOptions extends TargetOptions {
  matrix?: EscapeMatrix;
}

/**
 * Normalises a stored destination and precomputes its app hand-off. `fallbackUrl` is where Android lands
 * when the app cannot take the intent (the rich fallback page); by default the destination itself.
 * `selfUrl` (the short link's address) lets the iOS bounce to Safari come back to the link.
 */
export function compileDestination(
  table: PlatformTable,
  destination: string,
  options: CompileOptions = {},
): CompiledDestination {
  const { matrix, ...targetOptions } = options;
  const compiled: CompiledDestination = {
    location: new URL(destination).href,
    target: appTargetFor(table, destination, targetOptions),
  };
  if (matrix !== undefined) compiled.matrix = matrix;
  return compiled;
}

import type { EscapeMatrix } from './escape/index.js';
import type { ChooseStrategy, EscapePlan } from './pages/escape-plan.js';
import { planEscape } from './pages/escape-plan.js';
import type { AppTarget, PlatformTable, TargetOptions } from './platforms/index.js';
import { appTargetFor } from './platforms/index.js';
import type { Visitor } from './visitor.js';

/** What a visit needs of a link, computed once when the link is loaded, never per request. */
export interface CompiledDestination {
  /** The destination as an ASCII-safe absolute URL, ready for a Location header. */
  location: string;
  /** The native-app hand-off for this destination, or null when no platform's app can open it. */
  target: AppTarget | null;
  /** The deployment's escape matrix (ESCAPE_MATRIX_FILE over the built-in rows); absent: the built-in one. */
  matrix?: EscapeMatrix;
}

export type VisitDecision =
  | { kind: 'redirect'; location: string }
  | { kind: 'escape'; target: AppTarget; plan: EscapePlan };

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

export interface ResolveOptions {
  /** Overrides the compiled destination's matrix. */
  matrix?: EscapeMatrix;
  /** Chooses among a cell's allowed strategies (the bandit); see planEscape. */
  choose?: ChooseStrategy;
}

/**
 * The deep-link decision. Bots, link-preview crawlers and prefetches go first and always get the
 * redirect (a preview must unfurl the destination, never our page); then only a phone visiting a
 * destination some app can open gets the escape page, planned from the escape matrix.
 */
export function resolveVisit(
  compiled: CompiledDestination,
  visitor: Visitor,
  options: ResolveOptions = {},
): VisitDecision {
  const target = compiled.target;
  if (target === null || visitor.bot || visitor.preview || visitor.prefetch || !visitor.mobile) {
    return { kind: 'redirect', location: compiled.location };
  }
  const matrix = options.matrix ?? compiled.matrix;
  return { kind: 'escape', target, plan: planEscape(target, visitor, matrix, options.choose) };
}

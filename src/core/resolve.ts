import type { ChooseStrategy } from './escape/bandit.js';
import type { EscapePlan } from './pages/escape-plan.js';
import { planEscape } from './pages/escape-plan.js';
import type { AppTarget, PlatformTable } from './platforms/index.js';
import { appTargetFor } from './platforms/index.js';
import type { Visitor } from './visitor.js';

/** What a visit needs of a link, computed once when the link is loaded, never per request. */
export interface CompiledDestination {
  /** The destination as an ASCII-safe absolute URL, ready for a Location header. */
  location: string;
  /** The native-app hand-off for this destination, or null when no platform's app can open it. */
  target: AppTarget | null;
}

export type VisitDecision =
  | { kind: 'redirect'; location: string }
  | { kind: 'escape'; target: AppTarget; plan: EscapePlan };

/**
 * Normalises a stored destination and precomputes its app hand-off. `fallbackUrl` is where Android lands
 * when the app cannot take the intent (the rich fallback page); by default the destination itself.
 */
export function compileDestination(
  table: PlatformTable,
  destination: string,
  options: { fallbackUrl?: string } = {},
): CompiledDestination {
  return { location: new URL(destination).href, target: appTargetFor(table, destination, options) };
}

/**
 * The deep-link decision. Bots, link-preview crawlers and prefetches go first and always get the
 * redirect (a preview must unfurl the destination, never our page); then only a phone visiting a
 * destination some app can open gets the escape page.
 */
export function resolveVisit(
  compiled: CompiledDestination,
  visitor: Visitor,
  options: { choose?: ChooseStrategy } = {},
): VisitDecision {
  const target = compiled.target;
  if (target === null || visitor.bot || visitor.preview || visitor.prefetch || !visitor.mobile) {
    return { kind: 'redirect', location: compiled.location };
  }
  return { kind: 'escape', target, plan: planEscape(target, visitor, undefined, options.choose) };
}

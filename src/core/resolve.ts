import type { CompiledDestination } from './destination.js';
import type { EscapeMatrix } from './escape/index.js';
import type { CompiledLink } from './link-compile.js';
import type { ChooseStrategy, EscapePlan } from './pages/escape-plan.js';
import { planEscape } from './pages/escape-plan.js';
import type { AppTarget } from './platforms/index.js';
import type { VisitSource } from './visit-source.js';
import type { Visitor } from './visitor.js';

/**
 * The visit decision, whole: what one request for a short link gets, decided here without I/O and acted
 * on by one performer (redirect/visit.ts for hosted links, the engine's routes for its bare destinations).
 * Gates in order: not found → expired (re-pointed, before any password) → password → click limit
 * (counted only after the password, since only a visit that reaches the destination counts) → the
 * destination for this visitor → the redirect, or the escape page with its cell and strategy.
 */

export type VisitDecision =
  | { kind: 'redirect'; location: string }
  | { kind: 'escape'; target: AppTarget; plan: EscapePlan };

export interface ResolveOptions {
  /** Overrides the compiled destination's matrix. */
  matrix?: EscapeMatrix;
  /** Chooses among a cell's allowed strategies (the bandit); see planEscape. */
  choose?: ChooseStrategy;
}

/** The app a phone in this visit could be handed to, or null when the visit gets the plain redirect. */
function escapeTargetOf(compiled: CompiledDestination, visitor: Visitor): AppTarget | null {
  const target = compiled.target;
  // Bots, link-preview crawlers and prefetches always get the redirect: a preview must unfurl the
  // destination, never our page. Only a phone visiting a destination some app can open gets the page.
  if (target === null || visitor.bot || visitor.preview || visitor.prefetch || !visitor.mobile) return null;
  return target;
}

/** The deep-link decision for one destination: the redirect, or the escape page planned from the matrix. */
export function resolveVisit(
  compiled: CompiledDestination,
  visitor: Visitor,
  options: ResolveOptions = {},
): VisitDecision {
  const target = escapeTargetOf(compiled, visitor);
  if (target === null) return { kind: 'redirect', location: compiled.location };
  const matrix = options.matrix ?? compiled.matrix;
  return { kind: 'escape', target, plan: planEscape(target, visitor, matrix, options.choose) };
}

export interface Choice {
  destination: CompiledDestination;
  /** 0-based index into the link's `ab` array when a variant was drawn. */
  variant: number | null;
  /** What chose the destination. */
  source: 'sched' | 'ab' | 'routing' | 'default';
}

/**
 * What a visit to a link does about its expiry: `open` (nothing to do), `expired` (redirect everyone to
 * the expired URL), or `counted` (a limit not yet reached: a person's click is counted first, atomically
 * across instances; bots and previews are served without counting).
 */
export type ExpiryState = 'open' | 'counted' | 'expired';

export function expiryStateOf(link: CompiledLink, nowMs: number): ExpiryState {
  const expiry = link.expiry;
  if (expiry === null) return 'open';
  if (expiry.reached || (expiry.at !== null && nowMs >= expiry.at)) return 'expired';
  return expiry.maxClicks === null ? 'open' : 'counted';
}

/**
 * The destination of one visit, in the spec's order: the latest past schedule entry; else an A/B draw;
 * else routing by device, then by country; else the default destination.
 */
export function chooseDestination(
  link: CompiledLink,
  visit: { os: Visitor['os']; country: string | null; nowSeconds: number; random: () => number },
): Choice {
  for (let i = link.sched.length - 1; i >= 0; i--) {
    const entry = link.sched[i];
    if (entry && entry.from <= visit.nowSeconds)
      return { destination: entry.destination, variant: null, source: 'sched' };
  }
  if (link.ab) {
    const draw = visit.random() * link.ab.total;
    const index = link.ab.cumulative.findIndex((bound) => draw < bound);
    const variant = index === -1 ? link.ab.variants.length - 1 : index;
    const destination = link.ab.variants[variant];
    if (destination) return { destination, variant, source: 'ab' };
  }
  if (link.routing) {
    const byDevice = link.routing.byOs[visit.os];
    if (byDevice) return { destination: byDevice, variant: null, source: 'routing' };
    const byCountry = visit.country ? link.routing.byCountry.get(visit.country) : undefined;
    if (byCountry) return { destination: byCountry, variant: null, source: 'routing' };
  }
  return { destination: link.fallback, variant: null, source: 'default' };
}

/** A hosted link as the decision reads it. */
export interface VisitedLink {
  link: CompiledLink;
  /** Null when the link has no password. */
  passwordHash: string | null;
  /** False once the organization is erased: the link still redirects, its visits are not recorded. */
  recorded: boolean;
}

/** What the decision knows of one request, read off it by the performer's caller. */
export interface VisitFacts {
  visitor: Visitor;
  /** The visitor's country (two letters) from the configured geo header, or null. */
  country: string | null;
  nowMs: number;
  random: () => number;
  /** The visitor holds a valid password cookie for this link (false for a link without a password). */
  unlocked: boolean;
  /** Set once this person's click was counted against the link's limit: true when the limit was reached. */
  limitReached?: boolean;
  /** The short URL itself or the link's QR code (its marker): recorded with the click, never decisive. */
  source: VisitSource;
}

/**
 * `visit`: `GET /{slug}`. `fallback`: `/_fallback/{slug}`, the rich page where Android lands when the app
 * could not take the hand-off; the visit was already counted and recorded, so it counts and records nothing.
 */
export type VisitPurpose = 'visit' | 'fallback';

export type LinkVisit =
  | { kind: 'not-found' }
  /** Re-pointed, never broken: everyone gets a plain redirect to the expired URL (outcome `expired`). */
  | { kind: 'expired'; destination: CompiledDestination; record: boolean }
  | { kind: 'password' }
  /** A person's click on a limited link: count it (atomically, across instances), then decide again. */
  | { kind: 'count-click' }
  /** The rich fallback page (or, without one, the redirect) for the destination chosen. */
  | { kind: 'fallback'; choice: Choice }
  | { kind: 'redirect'; choice: Choice; record: boolean }
  /** The escape page; `plan` carries its cell and strategy. */
  | { kind: 'escape'; choice: Choice; target: AppTarget; plan: EscapePlan; record: boolean };

export interface DecideOptions {
  /** The bandit's chooser for a destination platform's cells; unset: the matrix's first choice. */
  chooseFor?: (platformKey: string) => ChooseStrategy;
}

const NOT_FOUND: LinkVisit = Object.freeze({ kind: 'not-found' });
const PASSWORD: LinkVisit = Object.freeze({ kind: 'password' });
const COUNT_CLICK: LinkVisit = Object.freeze({ kind: 'count-click' });

/** The whole decision for one request to a hosted link (or to a slug no link has). */
export function decideVisit(
  entry: VisitedLink | undefined,
  facts: VisitFacts,
  purpose: VisitPurpose,
  options: DecideOptions = {},
): LinkVisit {
  if (entry === undefined) return NOT_FOUND;
  const { link } = entry;
  const { visitor } = facts;
  // A prefetch is not a visit: it is answered like one, never recorded.
  const record = purpose === 'visit' && entry.recorded && !visitor.prefetch;
  const expiry = link.expiry === null ? 'open' : expiryStateOf(link, facts.nowMs);
  if (expiry === 'expired' && link.expiry !== null)
    return { kind: 'expired', destination: link.expiry.destination, record };
  if (entry.passwordHash !== null && !facts.unlocked) return PASSWORD;
  if (expiry === 'counted' && purpose === 'visit' && link.expiry !== null) {
    // Bots, previews and prefetches are served without counting.
    const person = !visitor.bot && !visitor.preview && !visitor.prefetch;
    if (person && facts.limitReached === undefined) return COUNT_CLICK;
    if (facts.limitReached === true) return { kind: 'expired', destination: link.expiry.destination, record };
  }
  const choice = chooseDestination(link, {
    os: visitor.os,
    country: facts.country,
    nowSeconds: Math.floor(facts.nowMs / 1000),
    random: facts.random,
  });
  if (purpose === 'fallback') return { kind: 'fallback', choice };
  const compiled = choice.destination;
  const target = escapeTargetOf(compiled, visitor);
  if (target === null) return { kind: 'redirect', choice, record };
  const plan = planEscape(target, visitor, compiled.matrix, options.chooseFor?.(target.platformKey));
  return { kind: 'escape', choice, target, plan, record };
}

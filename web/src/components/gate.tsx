import { createContext, type ReactNode, useCallback, useContext, useLayoutEffect, useState } from 'react';
import type { Feature, Tier } from '../api/types';
import { FEATURE_NAMES, TIER_NAMES, tierFor, upgradeSentence } from '../plans';
import { useAuthed } from '../session';

/**
 * Where a plan lacks a feature, say so and what unlocks it, instead of a control that fails on click.
 */
export function UpgradeNotice({ feature, compact = false }: { feature: Feature; compact?: boolean }) {
  const session = useAuthed();
  return (
    <div className={`upgrade${compact ? ' upgrade-compact' : ''}`} data-feature={feature}>
      <span className="upgrade-icon" aria-hidden="true">
        ★
      </span>
      <p>
        {upgradeSentence(feature)} You are on {TIER_NAMES[session.org.tier]}. <OperatorSetsPlan />{' '}
        <a href="#/settings">How to move to {TIER_NAMES[tierFor(feature)]}</a>
      </p>
    </div>
  );
}

function OperatorSetsPlan() {
  return <>On this instance its operator sets each workspace’s plan: there is nothing to buy here.</>;
}

/** "Hero and Legend" or "Legend": the plans that include `feature`. */
export function plansWith(feature: Feature): string {
  return tierFor(feature) === 'legend' ? 'Legend' : 'Hero and Legend';
}

/**
 * A page with several locked sections (the link editor) explains the plan once, in `UpgradeSummary`;
 * each section only carries an `UpgradeLabel`, which registers its feature here so the summary lists
 * exactly the locked features the page shows.
 */
const LockedFeatures = createContext<((feature: Feature) => () => void) | null>(null);

/** The features locked on the page, in the order their labels appeared; `register` goes to the provider. */
export function useLockedFeatures(): { locked: Feature[]; register: (feature: Feature) => () => void } {
  const [locked, setLocked] = useState<Feature[]>([]);
  const register = useCallback((feature: Feature) => {
    setLocked((now) => (now.includes(feature) ? now : [...now, feature]));
    return () => setLocked((now) => now.filter((f) => f !== feature));
  }, []);
  return { locked, register };
}

/** Where the `UpgradeLabel`s inside report their features (from `useLockedFeatures`). */
export function LockedFeaturesProvider({
  register,
  children,
}: {
  register: (feature: Feature) => () => void;
  children: ReactNode;
}) {
  return <LockedFeatures.Provider value={register}>{children}</LockedFeatures.Provider>;
}

/**
 * A locked section's one-line label ("★ Part of Hero and Legend"), for a page whose `UpgradeSummary`
 * already says which plan the workspace is on and how to move.
 */
export function UpgradeLabel({ feature }: { feature: Feature }) {
  const register = useContext(LockedFeatures);
  useLayoutEffect(() => register?.(feature), [register, feature]);
  return (
    <p className="upgrade upgrade-label" data-feature={feature}>
      <span className="upgrade-icon" aria-hidden="true">
        ★
      </span>{' '}
      Part of {plansWith(feature)}
    </p>
  );
}

const RANK: Record<Tier, number> = { sidekick: 0, hero: 1, legend: 2 };

/**
 * The one notice at the top of a page with locked sections: the workspace's plan, the locked features
 * by the plans that include them, that the operator sets plans here, and how to move up.
 */
export function UpgradeSummary({ locked }: { locked: readonly Feature[] }) {
  const session = useAuthed();
  if (locked.length === 0) return null;
  const byPlans = new Map<string, Feature[]>();
  for (const feature of locked) {
    const plans = plansWith(feature);
    byPlans.set(plans, [...(byPlans.get(plans) ?? []), feature]);
  }
  // The cheapest plan that unlocks any of them; the groups say which need more.
  const target = locked.map(tierFor).reduce((a, b) => (RANK[b] < RANK[a] ? b : a));
  return (
    <section className="upgrade upgrade-summary" aria-label="Features not on your plan">
      <span className="upgrade-icon" aria-hidden="true">
        ★
      </span>
      <div>
        <p>
          You are on <strong>{TIER_NAMES[session.org.tier]}</strong>.{' '}
          {locked.length === 1 ? 'One feature on this page is' : `${locked.length} features on this page are`}{' '}
          not on your plan:
        </p>
        <ul className="upgrade-list">
          {[...byPlans].map(([plans, features]) => (
            <li key={plans}>
              {features.map((feature) => FEATURE_NAMES[feature]).join(', ')}: part of {plans}.
            </li>
          ))}
        </ul>
        <p>
          <OperatorSetsPlan /> <a href="#/settings">How to move to {TIER_NAMES[target]}</a>
        </p>
      </div>
    </section>
  );
}

/** Renders `children` when the plan has `feature`, else the upgrade notice (`label`: the one-line label). */
export function Gate({
  feature,
  children,
  compact,
  label,
}: {
  feature: Feature;
  children: ReactNode;
  compact?: boolean;
  label?: boolean;
}) {
  const session = useAuthed();
  if (session.features[feature]) return children;
  return label ? <UpgradeLabel feature={feature} /> : <UpgradeNotice feature={feature} compact={compact} />;
}

import type { ReactNode } from 'react';
import type { Feature } from '../api/types';
import { TIER_NAMES, tierFor, upgradeSentence } from '../plans';
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
        {upgradeSentence(feature)} You are on {TIER_NAMES[session.org.tier]}. On this instance its operator
        sets each workspace’s plan: there is nothing to buy here.{' '}
        <a href="#/settings">How to move to {TIER_NAMES[tierFor(feature)]}</a>
      </p>
    </div>
  );
}

/** Renders `children` when the plan has `feature`, else the upgrade notice. */
export function Gate({
  feature,
  children,
  compact,
}: {
  feature: Feature;
  children: ReactNode;
  compact?: boolean;
}) {
  const session = useAuthed();
  return session.features[feature] ? children : <UpgradeNotice feature={feature} compact={compact} />;
}

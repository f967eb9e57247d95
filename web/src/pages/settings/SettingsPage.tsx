import { FEATURES, LINK_CAPS, TIERS } from '../../../../src/tenancy/plans.js';
import type { Feature, Link, Tier } from '../../api/types';
import { Badge, Banner, Card, CopyButton, formatNumber, PageHeader } from '../../components/ui';
import { FEATURE_NAMES, TIER_NAMES, tierFor } from '../../plans';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { DeleteAccountCard, LeaveWorkspaceCard, PasswordCard } from './AccountCards';
import { SsoCard } from './SsoCard';
import './settings.css';

const nextTier = (tier: Tier): Tier | null => TIERS[TIERS.indexOf(tier) + 1] ?? null;

/** Features in the order they arrive: every plan first, then Hero, then Legend. */
const BY_TIER: Feature[] = [...FEATURES].sort(
  (a, b) => TIERS.indexOf(tierFor(a)) - TIERS.indexOf(tierFor(b)),
);

export function SettingsPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const tier = session.org.tier;
  const next = nextTier(tier);
  const links = useApi<{ links: Link[] }>('/links');
  const used = links.data?.links.length;
  const cap = LINK_CAPS[tier];
  const share = used === undefined ? 0 : Math.min(1, used / cap);
  const yours = BY_TIER.filter((feature) => session.features[feature]);
  const command = `linkhop org set-tier ${session.org.id} ${next ?? 'legend'}`;
  // Every cell of a plan's column carries its marks, so the whole column of the current and next plan shows.
  const column = (t: Tier, extra = '') =>
    `tier-col${extra}${t === tier ? ' current' : ''}${t === next ? ' next' : ''}`;

  return (
    <div className="settings-page">
      <PageHeader
        title="Plan & settings"
        subtitle="Your workspace, your plan, and what each plan includes."
      />
      <div className="grid-2">
        <Card title="Workspace">
          <dl className="facts">
            <div>
              <dt>Workspace</dt>
              <dd>{session.org.name}</dd>
            </div>
            <div>
              <dt>Your email</dt>
              <dd>{session.user.email}</dd>
            </div>
            <div>
              <dt>Workspace ID</dt>
              <dd className="with-copy">
                <code>{session.org.id}</code>
                <CopyButton text={session.org.id} label="Copy" />
              </dd>
            </div>
          </dl>
        </Card>
        <Card title="Your plan" actions={<span className={`tier tier-${tier}`}>{TIER_NAMES[tier]}</span>}>
          <div className="usage">
            <div className="usage-head">
              <span>Live links</span>
              <span className="num">
                {used === undefined ? '…' : formatNumber(used)}{' '}
                <span className="muted">of {formatNumber(cap)}</span>
              </span>
            </div>
            <div
              className={`usage-track${share >= 0.9 ? ' usage-full' : ''}`}
              role="progressbar"
              aria-label="Live links used"
              aria-valuemin={0}
              aria-valuemax={cap}
              aria-valuenow={used ?? 0}
            >
              <span style={{ width: `${share * 100}%` }} />
            </div>
            <p className="hint">
              Archived links do not count and keep redirecting. Links over the cap after a plan change become
              read-only; they still redirect.
            </p>
          </div>
          {links.error ? <Banner>{links.error}</Banner> : null}
          <p className="label">Included in {TIER_NAMES[tier]}</p>
          <ul className="feature-chips" aria-label={`Features of ${TIER_NAMES[tier]}`}>
            {yours.map((feature) => (
              <li key={feature}>
                <Badge tone="good">{FEATURE_NAMES[feature]}</Badge>
              </li>
            ))}
          </ul>
        </Card>
      </div>

      <Card title="Compare plans">
        {next ? (
          <p className="compare-lede">
            Highlighted: what <strong>{TIER_NAMES[next]}</strong> adds to your {TIER_NAMES[tier]} plan.
          </p>
        ) : (
          <p className="compare-lede">You are on Legend, the top plan: every feature is yours.</p>
        )}
        <div className="table-wrap">
          <table className="plan-table">
            <caption className="sr-only">Features and link caps of Sidekick, Hero and Legend</caption>
            <thead>
              <tr>
                <th scope="col">Feature</th>
                {TIERS.map((t) => (
                  <th scope="col" key={t} className={column(t)}>
                    {TIER_NAMES[t]}
                    {t === tier ? <span className="col-tag">Your plan</span> : null}
                    {t === next ? <span className="col-tag">Next</span> : null}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              <tr className={next ? 'unlock' : undefined}>
                <th scope="row">Live links</th>
                {TIERS.map((t) => (
                  <td key={t} className={column(t, ' num')}>
                    {formatNumber(LINK_CAPS[t])}
                  </td>
                ))}
              </tr>
              {BY_TIER.map((feature) => {
                const unlocks = next !== null && !session.features[feature] && tierFor(feature) === next;
                return (
                  <tr key={feature} className={unlocks ? 'unlock' : undefined}>
                    <th scope="row">
                      {FEATURE_NAMES[feature]}
                      {unlocks ? <span className="sr-only"> (unlocked by {TIER_NAMES[next]})</span> : null}
                    </th>
                    {TIERS.map((t) => {
                      const has = TIERS.indexOf(t) >= TIERS.indexOf(tierFor(feature));
                      return (
                        <td key={t} className={column(t)}>
                          {has ? (
                            <span className="yes">
                              <span aria-hidden="true">✓</span>
                              <span className="sr-only">Included</span>
                            </span>
                          ) : (
                            <span className="no">
                              <span aria-hidden="true">—</span>
                              <span className="sr-only">Not included</span>
                            </span>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </Card>

      <Card title="Changing plans">
        <p>
          There is no billing in linkhop: whoever runs this server sets each workspace’s plan. To move this
          workspace {next ? `to ${TIER_NAMES[next]}` : 'to another plan'}, ask your operator to run:
        </p>
        <div className="secret-box command">
          <code>{command}</code>
          <CopyButton text={command} label="Copy" />
        </div>
        <p className="hint">
          Any of <code>sidekick</code>, <code>hero</code> or <code>legend</code> works. The change applies on
          your next page load; links are never switched off by a plan change.
        </p>
      </Card>

      <div className="grid-2">
        <PasswordCard />
        <SsoCard />
        <LeaveWorkspaceCard />
        <DeleteAccountCard />
      </div>
    </div>
  );
}

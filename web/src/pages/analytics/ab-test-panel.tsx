import { useCallback, useEffect, useState } from 'react';
import { ApiError, get, messageOf, post } from '../../api/client';
import type { AbReadout, Link } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm';
import {
  Badge,
  Banner,
  Button,
  Card,
  formatDate,
  formatDateTime,
  formatNumber,
  Loading,
} from '../../components/ui';
import { can } from '../../roles';
import { useAuthed, useWorkspaceId } from '../../session';
import { variantLetter } from '../links/common';
import { AnalyticsTable, numeric } from './sections';
import { RateCell } from './shared';

/**
 * A link's A/B test (issue #33): per variant, visits, app-open outcomes, the open rate and the probability
 * of being best; a "Promote" button per variant (with a confirmation) while the test runs, and what was
 * decided once it concluded. Shown for a link that runs a test or concluded one.
 */

/** A Monte Carlo estimate is never certain: its ends read as bounds, not as 0 % or 100 %. */
const percent = (p: number) => (p >= 0.9995 ? '> 99.9%' : p < 0.0005 ? '< 0.1%' : `${(p * 100).toFixed(1)}%`);

/** The readout, or null when the link never had a test (404 no_ab_test). */
function useReadout(linkId: string, testId: string | null) {
  const workspace = useWorkspaceId();
  const [readout, setReadout] = useState<AbReadout | null>();
  const [error, setError] = useState<string>();
  const path = `/links/${encodeURIComponent(linkId)}/ab${testId ? `?test=${encodeURIComponent(testId)}` : ''}`;
  const load = useCallback(async () => {
    setError(undefined);
    try {
      setReadout(await get<AbReadout>(path));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'no_ab_test') setReadout(null);
      else setError(messageOf(err));
    }
  }, [path]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a workspace switch reads again.
  useEffect(() => {
    void load();
  }, [load, workspace]);
  return { readout, error, setReadout };
}

export function AbTestPanel({ link, onPromoted }: { link: Link; onPromoted: (link: Link) => void }) {
  const session = useAuthed();
  const [testId, setTestId] = useState<string | null>(null);
  const { readout, error, setReadout } = useReadout(link.id, testId);
  const [promoting, setPromoting] = useState<number | null>(null);
  if (error) return <Banner>{error}</Banner>;
  if (readout === null) return null;
  if (readout === undefined) return <Loading label="Loading the A/B test" />;

  const running = readout.status === 'running';
  const mayPromote = running && can(session, 'links:write');
  const total = readout.variants.reduce((sum, v) => sum + v.weight, 0);
  const leader = readout.variants.reduce((best, v) => (v.probabilityBest > best.probabilityBest ? v : best));
  const chosen = promoting === null ? undefined : readout.variants[promoting];
  const promote = async () => {
    if (promoting === null) return;
    const answer = await post<{ link: Link; test: AbReadout }>(
      `/links/${encodeURIComponent(link.id)}/ab/promote`,
      { variant: promoting },
    );
    setTestId(null);
    setReadout(answer.test);
    onPromoted(answer.link);
  };

  return (
    <Card
      title="A/B test"
      className="an-ab"
      actions={
        <span className="card-note">
          {running ? <Badge tone="brand">Running</Badge> : <Badge tone="good">Concluded</Badge>}{' '}
          {readout.window.from === readout.window.to
            ? readout.window.from
            : `${readout.window.from} to ${readout.window.to}`}
        </span>
      }
    >
      {running ? (
        <p className="an-note" data-testid="ab-status">
          Running since {formatDateTime(readout.startedAt)}.{' '}
          {readout.autoPromote
            ? `Promotes by itself once every variant has ${formatNumber(readout.autoPromote.minVisits)} visits and one is best with ${percent(readout.autoPromote.confidence)} probability.`
            : 'Promote the winner when you are sure enough: it becomes the destination and the test ends.'}
        </p>
      ) : (
        <Banner kind="success">
          <span data-testid="ab-status">
            Variant {variantLetter(readout.promotedVariant ?? 0)} was promoted{' '}
            {readout.promotedBy === 'auto' ? 'by auto-promote' : ''} on {formatDate(readout.promotedAt)}: its
            URL is the destination now.
          </span>
        </Banner>
      )}
      <AnalyticsTable
        label="A/B variants"
        columns={[
          'Variant',
          'Destination',
          numeric('Weight'),
          numeric('Visits'),
          numeric('Opened / reported'),
          numeric('App-open rate'),
          numeric('Probability best'),
          ...(mayPromote ? [''] : []),
        ]}
      >
        {readout.variants.map((variant) => (
          <tr key={variant.variant} data-variant={variant.variant}>
            <td>
              <Badge tone={readout.promotedVariant === variant.variant ? 'good' : 'brand'}>
                {variantLetter(variant.variant)}
              </Badge>
              {readout.promotedVariant === variant.variant ? (
                <span className="sr-only"> (winner)</span>
              ) : null}
            </td>
            <td className="url" title={variant.url}>
              {variant.url}
            </td>
            <td className="num">
              {total > 0 ? `${Math.round((variant.weight / total) * 100)}%` : variant.weight}
            </td>
            <td className="num">{formatNumber(variant.visits)}</td>
            <td className="num">
              {formatNumber(variant.outcomes.opened)} /{' '}
              {formatNumber(variant.outcomes.opened + variant.outcomes.browser + variant.outcomes.broken)}
            </td>
            <td className="num">
              <RateCell rate={variant.openRate} />
            </td>
            <td className="num" data-testid="probability-best">
              {percent(variant.probabilityBest)}
            </td>
            {mayPromote ? (
              <td className="num">
                <Button className="btn-small" onClick={() => setPromoting(variant.variant)}>
                  Promote {variantLetter(variant.variant)}
                </Button>
              </td>
            ) : null}
          </tr>
        ))}
      </AnalyticsTable>
      <p className="an-note">
        Probability best: the chance that a variant's app-open rate is the highest, from its opened and not
        opened taps ({formatNumber(readout.samples)} draws of Beta posteriors). Visits count people, never
        bots.
        {running ? ` Leading now: variant ${variantLetter(leader.variant)}.` : ''}
      </p>
      {readout.history.length > 0 ? (
        <details className="an-ab-history">
          <summary>Concluded tests ({readout.history.length})</summary>
          <ul>
            {readout.history.map((test) => (
              <li key={test.id}>
                <button type="button" className="link-button" onClick={() => setTestId(test.id)}>
                  {formatDate(test.startedAt)} to {formatDate(test.promotedAt)}
                </button>
                : variant {variantLetter(test.promotedVariant)} won (
                {test.promotedBy === 'auto' ? 'auto-promote' : 'promoted'}), {test.url}
              </li>
            ))}
          </ul>
          {testId ? (
            <Button variant="ghost" className="btn-small" onClick={() => setTestId(null)}>
              Back to the current test
            </Button>
          ) : null}
        </details>
      ) : null}
      <ConfirmDialog
        open={chosen !== undefined}
        title={`Promote variant ${variantLetter(promoting ?? 0)}?`}
        confirmLabel={`Promote ${variantLetter(promoting ?? 0)}`}
        danger={false}
        onConfirm={promote}
        onClose={() => setPromoting(null)}
      >
        <p>
          The link will go to <strong className="mono">{chosen?.url}</strong> for everyone, and the test ends.
          Its results stay here.
        </p>
        {chosen && chosen.probabilityBest < 0.95 ? (
          <p className="hint">
            Variant {variantLetter(chosen.variant)} is best with probability {percent(chosen.probabilityBest)}{' '}
            so far: the data does not settle it yet.
          </p>
        ) : null}
      </ConfirmDialog>
    </Card>
  );
}

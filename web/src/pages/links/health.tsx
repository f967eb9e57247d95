import type { Link, LinkHealthHistory } from '../../api/types';
import { UpgradeLabel } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  formatDate,
  formatDateTime,
  formatNumber,
  Loading,
  SelectField,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import type { EditorCardProps } from './form';
import { UrlField } from './inputs';
import './health.css';

/**
 * Destination health (issue #33) in the dashboard: the badge and the filter of the links list, the
 * fallback URL field of the editor, and the link page's panel with the last checks.
 */

export type LinkHealth = Link['health'];
export type HealthState = LinkHealth['state'];
/** The list's health filter: blank is every link. */
export type HealthFilterValue = '' | HealthState;

export const HEALTH_FILTER_VALUES: readonly HealthState[] = ['down', 'ok', 'unknown'];

/** A `?health=` value from a URL, or blank when it is not one the API knows. */
export function healthFilterOf(value: string | null): HealthFilterValue {
  return HEALTH_FILTER_VALUES.find((state) => state === value) ?? '';
}

export function HealthFilter({
  value,
  onChange,
}: {
  value: HealthFilterValue;
  onChange: (value: HealthFilterValue) => void;
}) {
  return (
    <SelectField
      label="Destination health"
      value={value}
      onChange={(event) => onChange(healthFilterOf(event.target.value))}
    >
      <option value="">All</option>
      <option value="down">Down</option>
      <option value="ok">OK</option>
      <option value="unknown">Not checked yet</option>
    </SelectField>
  );
}

/** A check's error code, in words. */
const ERROR_WORDS: Record<string, string> = {
  dns_failed: 'Host not found',
  timeout: 'Timed out',
  network: 'Connection failed',
  too_many_redirects: 'Too many redirects',
  too_large: 'Answer too large',
  address_not_allowed: 'Address not checked',
  scheme_not_allowed: 'Address not checked',
  invalid_url: 'Not a valid URL',
};

export function errorWords(code: string): string {
  return ERROR_WORDS[code] ?? code.replace(/_/g, ' ');
}

/** The last answer: `HTTP 404`, or the reason there was none. */
function answerOf(status: number | null, error: string | null): string {
  if (status !== null) return `HTTP ${status}`;
  return error ? errorWords(error) : 'No answer';
}

/**
 * The links list's badge: shown only while the destination is down (an OK destination needs no word),
 * with what happens to visits meanwhile.
 */
export function HealthBadge({ link }: { link: Link }) {
  const { health } = link;
  if (health.state !== 'down') return null;
  const since = health.since ? ` since ${formatDate(health.since)}` : '';
  const last = health.lastStatus !== null ? `Last answer: HTTP ${health.lastStatus}. ` : '';
  return (
    <div className="lk-health-line">
      <span title={`${last}Checked ${formatDateTime(health.checkedAt)}`}>
        <Badge tone="bad">Destination down{since}</Badge>
      </span>
      <span className="lk-health-note">
        {link.fallbackUrl ? (
          'Visits go to the fallback URL'
        ) : (
          <a href={`#/links/${link.id}`}>
            Add a fallback URL<span className="sr-only"> to {link.slug}</span>
          </a>
        )}
      </span>
    </div>
  );
}

/**
 * The editor's fallback URL: where visits go while the destination is down, back to the destination once
 * it answers again. A plan without device routing sees the field disabled, with its one-line label.
 */
export function FallbackField({ form, update, errors }: EditorCardProps) {
  const { features } = useAuthed();
  const locked = !features.platformTargeting;
  return (
    <div className="lk-fallback">
      <UrlField
        label="Fallback URL"
        value={form.fallbackUrl}
        error={errors.of('fallbackUrl')}
        hint="If the destination stops working (a removed video, a page gone, a site down), visits go here until it is back. Blank: they keep going to the destination."
        disabled={locked}
        onChange={(event) => update({ fallbackUrl: event.target.value })}
      />
      {locked ? <UpgradeLabel feature="platformTargeting" /> : null}
    </div>
  );
}

const STATE_WORDS: Record<HealthState, string> = { ok: 'OK', down: 'Down', unknown: 'Not checked yet' };
const STATE_TONES = { ok: 'good', down: 'bad', unknown: 'neutral' } as const;
const OUTCOME_WORDS = { ok: 'OK', failed: 'Failed', neutral: 'No verdict' } as const;
const OUTCOME_TONES = { ok: 'good', failed: 'bad', neutral: 'neutral' } as const;

/** A check's time as the date and the clock, each kept whole, so a phone puts the clock under the date. */
function CheckTime({ iso }: { iso: string }) {
  const at = new Date(iso);
  const day = at.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const clock = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return (
    <time dateTime={iso}>
      <span>{day},</span> <span>{clock}</span>
    </time>
  );
}

/** The banner above the editor while the destination is down: what visitors get, and what to do. */
export function HealthNotice({ link }: { link: Link }) {
  if (link.health.state !== 'down') return null;
  const since = link.health.since ? ` since ${formatDateTime(link.health.since)}` : '';
  return (
    <Banner kind="warning">
      <strong>The destination is down{since}.</strong>{' '}
      {link.fallbackUrl
        ? 'Visits go to the fallback URL until it answers again, then back to the destination by themselves.'
        : 'Visits still go to it. Add a fallback URL below so they land somewhere that works, or change the destination.'}
    </Banner>
  );
}

/**
 * The link page's "Destination health" panel: the state, when it was last checked and since when it is
 * so, the last answer, and the last 20 checks, newest first. The page keys it by the link's `updatedAt`,
 * so a saved destination's health is read again.
 */
export function HealthPanel({ link }: { link: Link }) {
  const loaded = useApi<LinkHealthHistory>(`/links/${link.id}/health`);
  const health = loaded.data ?? { ...link.health, checks: undefined };
  return (
    <Card
      title="Destination health"
      className="lk-health-card"
      actions={<Badge tone={STATE_TONES[health.state]}>{STATE_WORDS[health.state]}</Badge>}
    >
      <p className="hint lk-health-intro">
        linkhop checks the destination now and then. It is down after 3 failures in a row over at least 30
        minutes (not found, gone, a server error, no answer), and OK again after one success.
      </p>
      <dl className="lk-facts lk-health-facts">
        <div>
          <dt>State</dt>
          <dd>{STATE_WORDS[health.state]}</dd>
        </div>
        <div>
          <dt>Last checked</dt>
          <dd>
            {health.checkedAt ? (
              <time dateTime={health.checkedAt}>{formatDateTime(health.checkedAt)}</time>
            ) : (
              'Not yet'
            )}
          </dd>
        </div>
        <div>
          <dt>Since</dt>
          <dd>{health.since ? <time dateTime={health.since}>{formatDateTime(health.since)}</time> : '—'}</dd>
        </div>
        <div>
          <dt>Last status</dt>
          <dd>{health.lastStatus !== null ? `HTTP ${health.lastStatus}` : '—'}</dd>
        </div>
      </dl>
      {loaded.error ? (
        <div className="lk-health-error">
          <Banner>{loaded.error}</Banner>
          <Button className="btn-small" onClick={() => void loaded.reload()}>
            Try again
          </Button>
        </div>
      ) : null}
      {!loaded.data && !loaded.error ? <Loading label="Loading checks" /> : null}
      {loaded.data && loaded.data.checks.length === 0 ? (
        <p className="muted lk-health-empty">No checks yet: the first one comes within a day.</p>
      ) : null}
      {loaded.data && loaded.data.checks.length > 0 ? (
        <div className="table-wrap lk-health-wrap">
          <table className="lk-health-table">
            <caption className="sr-only">The last {loaded.data.checks.length} checks, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Checked</th>
                <th scope="col">Outcome</th>
                <th scope="col">Answer</th>
                <th scope="col" className="lk-health-num">
                  Took
                </th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.checks.map((check) => (
                <tr key={check.checkedAt}>
                  <td className="lk-check-when">
                    <CheckTime iso={check.checkedAt} />
                  </td>
                  <td>
                    <Badge tone={OUTCOME_TONES[check.outcome]}>{OUTCOME_WORDS[check.outcome]}</Badge>
                  </td>
                  <td>{answerOf(check.status, check.error)}</td>
                  <td className="lk-health-num">{formatNumber(check.durationMs)} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Card>
  );
}

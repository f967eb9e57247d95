import { Card, TextField, Toggle } from '../../components/ui';
import type { EditorCardProps } from './form';
import { Power, UrlField } from './inputs';

/**
 * Campaign end and public stats (issue #20). An end date or a click limit never breaks the link: once
 * reached, every visit goes to the "afterwards" URL instead. Public stats publish the link's aggregate
 * numbers at its short URL followed by `+`.
 */
export function ExpiryCard({ form, update, errors, expired }: EditorCardProps & { expired: boolean }) {
  const ending = form.expiresAt !== '' || form.maxClicks.trim() !== '';
  const summary = expired ? 'Ended: visits go to the afterwards URL' : ending ? 'On' : 'Off';
  return (
    <Card title="Campaign end and sharing">
      <Power
        title="End date or click limit"
        summary={summary}
        active={ending || form.expiredUrl !== ''}
        invalid={errors.under('expiresAt') || errors.under('maxClicks') || errors.under('expiredUrl')}
      >
        <p className="hint">
          The link never stops working: after the end, everyone who opens it is sent to the address below.
          Raise the limit, move the date, or clear both to send visitors to the destination again.
        </p>
        <TextField
          label="Ends at"
          type="datetime-local"
          value={form.expiresAt}
          error={errors.of('expiresAt')}
          hint="In your time zone. Leave blank for no end date."
          onChange={(event) => update({ expiresAt: event.target.value })}
        />
        <TextField
          label="Click limit"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={form.maxClicks}
          error={errors.of('maxClicks')}
          hint="People only: bots and link previews are not counted. Leave blank for no limit."
          onChange={(event) => update({ maxClicks: event.target.value })}
        />
        <UrlField
          label="Afterwards, send visitors to"
          value={form.expiredUrl}
          error={errors.of('expiredUrl')}
          hint="Required with an end date or a click limit, e.g. a “this offer has ended” page."
          onChange={(event) => update({ expiredUrl: event.target.value })}
        />
      </Power>
      <Power
        title="Public stats"
        feature="fullAnalytics"
        summary={form.publicStats ? 'Public' : 'Private'}
        active={form.publicStats}
        invalid={errors.under('publicStats')}
      >
        <Toggle
          label="Anyone can see this link’s clicks, countries, devices and app-open rate"
          checked={form.publicStats}
          hint="At the short link followed by +, for the last 30 days. Never anything about a single visitor."
          onChange={(on) => update({ publicStats: on })}
        />
      </Power>
    </Card>
  );
}

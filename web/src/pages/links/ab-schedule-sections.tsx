import { Button, TextField } from '../../components/ui';
import { variantLetter } from './common';
import { type AbRow, type EditorCardProps, rowKey, type SchedRow, withoutRow, withRowChanged } from './form';
import { Power, RemoveRowButton, UrlField } from './inputs';

/** The two powers that pick a destination by chance or by time: the A/B test and scheduled destinations. */

const MAX_VARIANTS = 4;
const MAX_SCHEDULED = 10;

export function AbTestSection({ form, update, errors }: EditorCardProps) {
  const setRow = (key: number, change: Partial<AbRow>) =>
    update({ ab: withRowChanged(form.ab, key, change) });
  const total = form.ab.reduce((sum, row) => sum + Math.max(0, Number(row.w) || 0), 0);
  // Weights are relative: each variant's hint says the share of visitors it gets.
  const shareOf = (row: AbRow) => {
    const w = Number(row.w);
    return total > 0 && w > 0 ? `${Math.round((w / total) * 100)}%` : undefined;
  };
  return (
    <Power
      title="A/B test"
      feature="abTesting"
      summary={form.ab.length > 0 ? `${form.ab.length} variants` : 'Off'}
      active={form.ab.length > 0}
      invalid={errors.under('ab')}
    >
      <p className="hint lk-power-intro">
        Split visitors between 2 to 4 destinations. Weights are relative: 1 and 1 is 50/50.
      </p>
      {errors.of('ab') ? <p className="field-error">{errors.of('ab')}</p> : null}
      <ol className="lk-rows">
        {form.ab.map((row, index) => (
          <li key={row.key} className="lk-row lk-ab-row" data-variant={index}>
            <UrlField
              label={`Variant ${variantLetter(index)} URL`}
              value={row.u}
              error={errors.of(`ab.${index}.u`)}
              onChange={(event) => setRow(row.key, { u: event.target.value })}
            />
            <TextField
              label="Weight"
              className="lk-weight-input"
              type="number"
              min={0}
              step="any"
              value={row.w}
              error={errors.of(`ab.${index}.w`)}
              hint={shareOf(row)}
              onChange={(event) => setRow(row.key, { w: event.target.value })}
            />
            <RemoveRowButton
              what={`variant ${variantLetter(index)}`}
              onClick={() => update({ ab: withoutRow(form.ab, row.key) })}
            />
          </li>
        ))}
      </ol>
      {form.ab.length > 1 ? (
        <div className="lk-row lk-ab-auto">
          <TextField
            label="Auto-promote after (visits per variant)"
            type="number"
            min={1}
            step={1}
            value={form.abMinVisits}
            error={errors.of('abAutoPromote.minVisits') ?? errors.of('abAutoPromote')}
            hint="Blank: you promote the winner yourself, from the link's A/B results."
            onChange={(event) => update({ abMinVisits: event.target.value })}
          />
          <TextField
            label="when it is best with probability"
            type="number"
            min={0.8}
            max={0.999}
            step="any"
            value={form.abConfidence}
            error={errors.of('abAutoPromote.confidence')}
            hint="0.8 to 0.999"
            onChange={(event) => update({ abConfidence: event.target.value })}
          />
        </div>
      ) : null}
      <div className="lk-row-tools">
        {form.ab.length === 0 ? (
          <Button
            className="btn-small"
            // A test starts with the destination as variant A against a new variant B.
            onClick={() =>
              update({
                ab: [
                  { key: rowKey(), u: form.url, w: '1' },
                  { key: rowKey(), u: '', w: '1' },
                ],
              })
            }
          >
            Start an A/B test
          </Button>
        ) : (
          <>
            <Button
              className="btn-small"
              disabled={form.ab.length >= MAX_VARIANTS}
              onClick={() => update({ ab: [...form.ab, { key: rowKey(), u: '', w: '1' }] })}
            >
              Add a variant
            </Button>
            <Button variant="ghost" className="btn-small" onClick={() => update({ ab: [] })}>
              End the test
            </Button>
            {form.ab.length >= MAX_VARIANTS ? <span className="hint">4 variants at most.</span> : null}
            {form.ab.length === 1 ? <span className="hint">Add a second variant to run a test.</span> : null}
          </>
        )}
      </div>
    </Power>
  );
}

export function ScheduleSection({ form, update, errors }: EditorCardProps) {
  const setRow = (key: number, change: Partial<SchedRow>) =>
    update({ sched: withRowChanged(form.sched, key, change) });
  return (
    <Power
      title="Scheduled destinations"
      feature="scheduledLinks"
      summary={form.sched.length > 0 ? `${form.sched.length} scheduled` : 'Off'}
      active={form.sched.length > 0}
      invalid={errors.under('sched')}
    >
      <p className="hint lk-power-intro">
        From each moment on, the link goes to that URL; the latest one that has started wins and holds until
        the next. Before the first, visitors get the destination above. Times are in your time zone.
      </p>
      {errors.of('sched') ? <p className="field-error">{errors.of('sched')}</p> : null}
      <ol className="lk-rows">
        {form.sched.map((row, index) => (
          <li key={row.key} className="lk-row lk-sched-row">
            <TextField
              label="Starts"
              type="datetime-local"
              value={row.from}
              error={errors.of(`sched.${index}.from`)}
              aria-label={`Starts, entry ${index + 1}`}
              onChange={(event) => setRow(row.key, { from: event.target.value })}
            />
            <UrlField
              label="URL (https)"
              value={row.url}
              error={errors.of(`sched.${index}.url`)}
              aria-label={`URL (https), entry ${index + 1}`}
              onChange={(event) => setRow(row.key, { url: event.target.value })}
            />
            <RemoveRowButton
              what={`entry ${index + 1}`}
              onClick={() => update({ sched: withoutRow(form.sched, row.key) })}
            />
          </li>
        ))}
      </ol>
      <div className="lk-row-tools">
        <Button
          className="btn-small"
          disabled={form.sched.length >= MAX_SCHEDULED}
          onClick={() => update({ sched: [...form.sched, { key: rowKey(), from: '', url: '' }] })}
        >
          Schedule a destination
        </Button>
        {form.sched.length >= MAX_SCHEDULED ? <span className="hint">10 entries at most.</span> : null}
      </div>
    </Power>
  );
}

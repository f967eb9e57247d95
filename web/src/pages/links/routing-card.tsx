import { Banner, Button, Card, TextField } from '../../components/ui';
import { AbTestSection, ScheduleSection } from './ab-schedule-sections';
import {
  DEVICE_KEYS,
  type DeviceKey,
  type EditorCardProps,
  type GeoRow,
  rowKey,
  withoutRow,
  withRowChanged,
} from './form';
import { Power, RemoveRowButton, UrlField } from './inputs';

/** Who goes where: device and country routing, the A/B test, and scheduled destinations. */
export function RoutingCard({ conflict, ...card }: EditorCardProps & { conflict: string | undefined }) {
  return (
    <Card title="Smart routing" className="lk-routing-card">
      <p className="hint lk-card-intro">
        Send each visitor to the right place. A/B tests and routing cannot be combined on one link.
      </p>
      {conflict ? <Banner>{conflict}</Banner> : null}
      <DeviceRouting {...card} />
      <CountryRouting {...card} />
      <AbTestSection {...card} />
      <ScheduleSection {...card} />
    </Card>
  );
}

const DEVICE_LABELS: Record<DeviceKey, string> = {
  ios: 'iPhone and iPad',
  android: 'Android',
  desktop: 'Desktop',
};

function DeviceRouting({ form, update, errors }: EditorCardProps) {
  const deviceCount = DEVICE_KEYS.filter((key) => form.devices[key].trim() !== '').length;
  return (
    <Power
      title="Device routing"
      feature="platformTargeting"
      summary={deviceCount > 0 ? `${deviceCount} device${deviceCount > 1 ? 's' : ''}` : 'Off'}
      active={deviceCount > 0}
      invalid={DEVICE_KEYS.some((key) => errors.of(`routing.${key}`))}
    >
      <div className="form-grid">
        {DEVICE_KEYS.map((key) => (
          <UrlField
            key={key}
            label={`${DEVICE_LABELS[key]} URL`}
            value={form.devices[key]}
            error={errors.of(`routing.${key}`)}
            onChange={(event) => update({ devices: { ...form.devices, [key]: event.target.value } })}
          />
        ))}
      </div>
    </Power>
  );
}

function CountryRouting({ form, update, errors }: EditorCardProps) {
  const countryKey = (row: GeoRow) => `routing.geo.${row.country.trim().toUpperCase()}`;
  // The browser's own row check (`geo-row.<key>`) first, then the API's verdict on that country.
  const rowError = (row: GeoRow) => errors.of(`geo-row.${row.key}`) ?? errors.of(countryKey(row));
  // API errors about a country no row holds any more still need to be seen.
  const unplaced = errors.entries.filter(
    ([key]) => key.startsWith('routing.geo') && !form.geo.some((row) => key === countryKey(row)),
  );
  const setRow = (key: number, change: Partial<GeoRow>) =>
    update({ geo: withRowChanged(form.geo, key, change) });
  const count = form.geo.length;
  return (
    <Power
      title="Country routing"
      feature="geoRouting"
      summary={count > 0 ? `${count} countr${count > 1 ? 'ies' : 'y'}` : 'Off'}
      active={count > 0}
      invalid={errors.under('routing.geo') || errors.entries.some(([key]) => key.startsWith('geo-row.'))}
    >
      <p className="hint lk-power-intro">
        Visitors from a country go to its URL; everyone else gets the rest.
      </p>
      {unplaced.map(([key, message]) => (
        <p key={key} className="field-error">
          {message}
        </p>
      ))}
      <ul className="lk-rows">
        {form.geo.map((row, index) => (
          <li key={row.key} className="lk-row lk-geo-row">
            <TextField
              label="Country"
              className="lk-country-input"
              value={row.country}
              maxLength={2}
              placeholder="US"
              autoCapitalize="characters"
              error={rowError(row)}
              aria-label={`Country code, row ${index + 1}`}
              onChange={(event) => setRow(row.key, { country: event.target.value.toUpperCase() })}
            />
            <UrlField
              label="URL"
              value={row.url}
              aria-label={`Country URL, row ${index + 1}`}
              onChange={(event) => setRow(row.key, { url: event.target.value })}
            />
            <RemoveRowButton
              what={`country row ${index + 1}`}
              onClick={() => update({ geo: withoutRow(form.geo, row.key) })}
            />
          </li>
        ))}
      </ul>
      <Button
        className="btn-small"
        onClick={() => update({ geo: [...form.geo, { key: rowKey(), country: '', url: '' }] })}
      >
        Add a country
      </Button>
    </Power>
  );
}

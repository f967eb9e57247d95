import type { Pixel } from '../../api/types';
import { Card, TextField, Toggle } from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { type EditorCardProps, UTM_KEYS, type UtmKey } from './form';
import { Power } from './inputs';
import { PixelPicker } from './pixel-picker';

/** The label and a placeholder for each UTM parameter. */
const UTM_LABELS: Record<UtmKey, [string, string]> = {
  source: ['Source', 'instagram'],
  medium: ['Medium', 'social'],
  campaign: ['Campaign', 'spring_launch'],
  term: ['Term', ''],
  content: ['Content', 'bio_link'],
};

/** What the link tells others about a tap: UTM parameters, ad pixels, and email capture. */
export function TrackingCard({ form, update, errors }: EditorCardProps) {
  const pixels = useApi<{ pixels: Pixel[] }>(useAuthed().features.pixelInjection ? '/pixels' : null);
  const utmCount = UTM_KEYS.filter((key) => form.utm[key].trim() !== '').length;
  return (
    <Card title="Tracking">
      <Power
        title="UTM parameters"
        summary={utmCount > 0 ? `${utmCount} set` : 'Off'}
        active={utmCount > 0}
        invalid={errors.under('utm')}
      >
        <p className="hint lk-power-intro">
          Added to every destination at redirect time (default, routed, A/B and scheduled), so your analytics
          tool sees where the tap came from. Stored URLs stay as you typed them.
        </p>
        <div className="form-grid lk-utm-grid">
          {UTM_KEYS.map((key) => (
            <TextField
              key={key}
              label={`UTM ${UTM_LABELS[key][0].toLowerCase()}`}
              value={form.utm[key]}
              placeholder={UTM_LABELS[key][1]}
              error={errors.of(`utm.${key}`)}
              maxLength={200}
              onChange={(event) => update({ utm: { ...form.utm, [key]: event.target.value } })}
            />
          ))}
        </div>
      </Power>
      <Power
        title="Ad pixels"
        feature="pixelInjection"
        summary={form.pixelIds.length > 0 ? `${form.pixelIds.length} on` : 'Off'}
        active={form.pixelIds.length > 0}
        invalid={errors.under('pixelIds')}
      >
        <PixelPicker
          pixels={pixels.data?.pixels ?? []}
          value={form.pixelIds}
          error={errors.of('pixelIds')}
          onChange={(pixelIds) => update({ pixelIds })}
          onCreated={() => void pixels.reload()}
        />
      </Power>
      <Power
        title="Email capture"
        feature="audienceCapture"
        summary={form.captureEmails ? 'On' : 'Off'}
        active={form.captureEmails}
        invalid={errors.under('captureEmails')}
      >
        <Toggle
          label="Ask visitors for their email"
          checked={form.captureEmails}
          onChange={(captureEmails) => update({ captureEmails })}
          hint="Visitors can leave their email before they continue; it lands in your Audience."
        />
      </Power>
    </Card>
  );
}

import { useState } from 'react';
import { ApiError, post } from '../../api/client';
import type { Pixel } from '../../api/types';
import { Button, SelectField, TextField } from '../../components/ui';
import { linkErrorMessage } from './common';
import { useInlineCreate } from './inputs';

/** The link's ad pixels: tick the workspace's pixels, or add a new one without leaving the form. */

const PIXEL_TYPES = {
  meta: { label: 'Meta pixel', hint: '15 or 16 digits' },
  tiktok: { label: 'TikTok pixel', hint: '20 capital letters and digits' },
  gtm: { label: 'Google Tag Manager', hint: 'GTM- then 4 to 10 capital letters and digits' },
} as const;
type PixelType = keyof typeof PIXEL_TYPES;

/** The API's limit of pixels on one link. */
const MAX_PIXELS = 10;

export function PixelPicker({
  pixels,
  value,
  error,
  onChange,
  onCreated,
}: {
  pixels: Pixel[];
  value: string[];
  error: string | undefined;
  onChange: (ids: string[]) => void;
  onCreated: () => void;
}) {
  return (
    <div className="lk-pixel-picker">
      <p className="hint lk-power-intro">Fire your ad pixels on the redirect, up to 10 per link.</p>
      {error ? <p className="field-error">{error}</p> : null}
      {pixels.length > 0 ? (
        <fieldset className="lk-checks">
          <legend className="sr-only">Pixels on this link</legend>
          {pixels.map((pixel) => (
            <label key={pixel.id} className="lk-check">
              <input
                type="checkbox"
                checked={value.includes(pixel.id)}
                onChange={(event) =>
                  onChange(
                    event.target.checked ? [...value, pixel.id] : value.filter((id) => id !== pixel.id),
                  )
                }
              />
              <span>
                <strong>{pixel.name}</strong>{' '}
                <span className="muted">
                  {PIXEL_TYPES[pixel.type].label} · <code>{pixel.pixelId}</code>
                </span>
              </span>
            </label>
          ))}
        </fieldset>
      ) : (
        <p className="muted">No pixels yet.</p>
      )}
      <NewPixel
        onCreated={(pixel) => {
          onCreated();
          // A new pixel goes on this link too, while the link has room for it.
          if (value.length < MAX_PIXELS) onChange([...value, pixel.id]);
        }}
      />
    </div>
  );
}

/** The "New pixel" button, and the small form it opens. */
function NewPixel({ onCreated }: { onCreated: (pixel: Pixel) => void }) {
  const [draft, setDraft] = useState<{ type: PixelType; pixelId: string; name: string }>({
    type: 'meta',
    pixelId: '',
    name: '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const creator = useInlineCreate(
    async () => {
      setErrors({});
      onCreated(await post<Pixel>('/pixels', draft));
      setDraft({ type: draft.type, pixelId: '', name: '' });
    },
    (failure) => {
      if (failure instanceof ApiError && failure.body.issues) setErrors(failure.fieldErrors());
      else setErrors({ pixelId: linkErrorMessage(failure) });
    },
  );
  if (!creator.adding) {
    return (
      <Button className="btn-small" onClick={() => creator.setAdding(true)}>
        New pixel
      </Button>
    );
  }
  return (
    <div className="lk-inline-create lk-pixel-create">
      <div className="form-grid">
        <SelectField
          label="Pixel type"
          value={draft.type}
          onChange={(event) => setDraft({ ...draft, type: event.target.value as PixelType })}
        >
          {Object.entries(PIXEL_TYPES).map(([type, info]) => (
            <option key={type} value={type}>
              {info.label}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Pixel ID"
          value={draft.pixelId}
          hint={PIXEL_TYPES[draft.type].hint}
          error={errors.pixelId ?? errors.type}
          onKeyDown={creator.onEnter}
          onChange={(event) => setDraft({ ...draft, pixelId: event.target.value })}
        />
        <TextField
          label="Pixel name"
          value={draft.name}
          placeholder="Spring campaign"
          error={errors.name}
          onKeyDown={creator.onEnter}
          onChange={(event) => setDraft({ ...draft, name: event.target.value })}
        />
      </div>
      <div className="lk-row-tools">
        <Button className="btn-small" busy={creator.busy} onClick={() => void creator.run()}>
          Add pixel
        </Button>
        <Button variant="ghost" className="btn-small" onClick={() => creator.setAdding(false)}>
          Cancel
        </Button>
      </div>
    </div>
  );
}

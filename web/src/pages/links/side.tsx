import { useState } from 'react';
import { ApiError, del, messageOf, post, put } from '../../api/client';
import type { Link, Preview } from '../../api/types';
import { Gate, UpgradeLabel } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  CopyButton,
  formatDateTime,
  Loading,
  SelectField,
  TextArea,
  TextField,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { platformName, shortDisplay } from './common';

/** The edit page's side column: the short link, its QR code and its link preview. */

export function ShortLinkCard({ link }: { link: Link }) {
  return (
    <Card title="Short link" className="lk-short-card">
      <p className="lk-short-big">
        <a href={link.shortUrl} target="_blank" rel="noreferrer">
          {shortDisplay(link.shortUrl)}
        </a>
      </p>
      <div className="lk-short-actions">
        <CopyButton text={link.shortUrl} label="Copy link" />
        <a className="btn btn-ghost btn-small" href={`#/links/${link.id}/analytics`}>
          Analytics
        </a>
      </div>
      <dl className="lk-facts">
        <div>
          <dt>Opens in</dt>
          <dd>
            {link.platformKey ? <Badge tone="brand">{platformName(link.platformKey)}</Badge> : 'the browser'}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(link.createdAt)}</dd>
        </div>
        <div>
          <dt>Last edited</dt>
          <dd>{formatDateTime(link.updatedAt)}</dd>
        </div>
      </dl>
    </Card>
  );
}

const QR_DEFAULTS = { size: '512', margin: '4', fg: '#000000', bg: '#ffffff', ecl: 'M' };
type QrOptions = typeof QR_DEFAULTS;

/** The size and margin the QR endpoint accepts: the message for each that is out of range. */
function qrErrors(opts: QrOptions): { size?: string; margin?: string } {
  const within = (text: string, min: number, max: number) => {
    const value = Number(text);
    return Number.isInteger(value) && value >= min && value <= max;
  };
  return {
    ...(within(opts.size, 128, 2048) ? {} : { size: 'Between 128 and 2048 pixels' }),
    ...(within(opts.margin, 0, 16) ? {} : { margin: 'Between 0 and 16 modules' }),
  };
}

export function QrCard({ link }: { link: Link }) {
  const canCustomize = useAuthed().features.qrCustomization;
  const [opts, setOpts] = useState(QR_DEFAULTS);
  const errors = qrErrors(opts);
  // The last valid options drive the preview, so a half-typed size never breaks the image.
  const [applied, setApplied] = useState(QR_DEFAULTS);
  const set = (key: keyof QrOptions, value: string) => {
    const next = { ...opts, [key]: value };
    setOpts(next);
    const nextErrors = qrErrors(next);
    if (!nextErrors.size && !nextErrors.margin) setApplied(next);
  };
  const src = (format: 'svg' | 'png') => {
    const query = new URLSearchParams({ format });
    if (canCustomize) {
      for (const key of Object.keys(QR_DEFAULTS) as (keyof QrOptions)[]) {
        if (applied[key] !== QR_DEFAULTS[key]) query.set(key, applied[key]);
      }
    }
    return `/api/links/${link.id}/qr?${query}`;
  };
  return (
    <Card title="QR code" className="lk-qr-card">
      <Gate feature="qrCodes" label>
        <div className="lk-qr-preview">
          <img src={src('svg')} alt={`QR code for ${shortDisplay(link.shortUrl)}`} width={180} height={180} />
        </div>
        <div className="lk-qr-downloads">
          <a className="btn btn-secondary btn-small" href={src('svg')} download={`${link.slug}-qr.svg`}>
            Download SVG
          </a>
          <a className="btn btn-secondary btn-small" href={src('png')} download={`${link.slug}-qr.png`}>
            Download PNG
          </a>
        </div>
        {canCustomize ? (
          <details className="lk-qr-custom">
            <summary>Customize</summary>
            <div className="lk-qr-grid">
              <TextField
                label="Size (px)"
                type="number"
                min={128}
                max={2048}
                step={64}
                value={opts.size}
                error={errors.size}
                onChange={(event) => set('size', event.target.value)}
              />
              <TextField
                label="Margin"
                type="number"
                min={0}
                max={16}
                value={opts.margin}
                error={errors.margin}
                onChange={(event) => set('margin', event.target.value)}
              />
              <TextField
                label="Foreground"
                type="color"
                className="lk-color-input"
                value={opts.fg}
                onChange={(event) => set('fg', event.target.value)}
              />
              <TextField
                label="Background"
                type="color"
                className="lk-color-input"
                value={opts.bg}
                onChange={(event) => set('bg', event.target.value)}
              />
            </div>
            <SelectField
              label="Error correction"
              value={opts.ecl}
              hint="Higher levels survive a logo or a scuff, at the cost of a denser code."
              onChange={(event) => set('ecl', event.target.value)}
            >
              <option value="L">Low (7%)</option>
              <option value="M">Medium (15%)</option>
              <option value="Q">Quartile (25%)</option>
              <option value="H">High (30%)</option>
            </SelectField>
            <Button
              variant="ghost"
              className="btn-small"
              onClick={() => {
                setOpts(QR_DEFAULTS);
                setApplied(QR_DEFAULTS);
              }}
            >
              Reset to defaults
            </Button>
          </details>
        ) : (
          <UpgradeLabel feature="qrCustomization" />
        )}
      </Gate>
    </Card>
  );
}

export function PreviewCard({ link }: { link: Link }) {
  const preview = useApi<Preview>(`/links/${link.id}/og`);
  const richFallback = useAuthed().features.richFallback;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState({ title: '', description: '', image: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState<'save' | 'scrape' | 'reset' | null>(null);

  async function run(kind: 'save' | 'scrape' | 'reset', call: () => Promise<Preview>) {
    setBusy(kind);
    setFailure(undefined);
    setErrors({});
    try {
      preview.setData(await call());
      setEditing(false);
    } catch (error) {
      if (error instanceof ApiError && error.body.issues) setErrors(error.fieldErrors());
      else setFailure(messageOf(error));
    } finally {
      setBusy(null);
    }
  }
  const data = preview.data;
  const nothing = data && !data.title && !data.description && !data.image;
  return (
    <Card
      title="Link preview"
      className="lk-og-card"
      actions={
        data ? (
          <Badge tone={data.source === 'custom' ? 'brand' : 'neutral'}>
            {data.source === 'custom' ? 'Custom' : 'From the page'}
          </Badge>
        ) : null
      }
    >
      <p className="hint lk-og-hint">
        The title, text and image people see when the link unfurls
        {richFallback ? ' and on the fallback page' : ''}.
      </p>
      {preview.error ? <Banner>{preview.error}</Banner> : null}
      {failure ? <Banner>{failure}</Banner> : null}
      {!data && !preview.error ? <Loading label="Loading preview" /> : null}
      {data && !editing ? (
        <>
          {nothing ? (
            <p className="muted">No preview yet. Fetch it from the destination, or write your own.</p>
          ) : (
            <div className="lk-og-box">
              {data.image ? <img src={data.image} alt="" className="lk-og-image" /> : null}
              <div className="lk-og-text">
                <strong>{data.title ?? 'No title'}</strong>
                {data.description ? <span>{data.description}</span> : null}
              </div>
            </div>
          )}
          <div className="lk-og-actions">
            <Button
              className="btn-small"
              onClick={() => {
                setDraft({
                  title: data.title ?? '',
                  description: data.description ?? '',
                  image: data.image ?? '',
                });
                setEditing(true);
              }}
            >
              Edit
            </Button>
            <Button
              variant="ghost"
              className="btn-small"
              busy={busy === 'scrape'}
              onClick={() => void run('scrape', () => post<Preview>(`/links/${link.id}/og/scrape`))}
            >
              Fetch again
            </Button>
            {data.source === 'custom' ? (
              <Button
                variant="ghost"
                className="btn-small"
                busy={busy === 'reset'}
                onClick={() => void run('reset', () => del<Preview>(`/links/${link.id}/og`))}
              >
                Use the page’s preview
              </Button>
            ) : null}
          </div>
          {!richFallback ? <UpgradeLabel feature="richFallback" /> : null}
        </>
      ) : null}
      {data && editing ? (
        <div className="lk-og-form">
          <TextField
            label="Title"
            value={draft.title}
            error={errors.title}
            onChange={(event) => setDraft({ ...draft, title: event.target.value })}
          />
          <TextArea
            label="Description"
            value={draft.description}
            error={errors.description}
            onChange={(event) => setDraft({ ...draft, description: event.target.value })}
          />
          <TextField
            label="Image URL"
            type="url"
            value={draft.image}
            error={errors.image}
            placeholder="https://…"
            onChange={(event) => setDraft({ ...draft, image: event.target.value })}
          />
          <div className="lk-og-actions">
            <Button
              variant="primary"
              className="btn-small"
              busy={busy === 'save'}
              onClick={() =>
                void run('save', () =>
                  put<Preview>(`/links/${link.id}/og`, {
                    title: draft.title.trim() || null,
                    description: draft.description.trim() || null,
                    image: draft.image.trim() || null,
                  }),
                )
              }
            >
              Save preview
            </Button>
            <Button variant="ghost" className="btn-small" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : null}
    </Card>
  );
}

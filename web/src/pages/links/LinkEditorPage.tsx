import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { LINK_CAPS } from '../../../../src/accounts/plans.js';
import { ApiError, patch, post } from '../../api/client';
import type { Folder, Link, Pixel } from '../../api/types';
import { Gate, UpgradeNotice } from '../../components/gate';
import {
  Banner,
  Button,
  Card,
  Loading,
  PageHeader,
  SelectField,
  TextField,
  Toggle,
} from '../../components/ui';
import { TIER_NAMES } from '../../plans';
import { hashQuery, navigate } from '../../router';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { ArchiveDialog, linkErrorMessage, shortDisplay } from './common';
import {
  type AbRow,
  changedBody,
  DEVICE_KEYS,
  type DeviceKey,
  emptyForm,
  formFromLink,
  type GeoRow,
  type LinkForm,
  localErrors,
  rowKey,
  type SchedRow,
  UTM_KEYS,
  type UtmKey,
} from './form';
import { Power, TagInput } from './inputs';
import { PreviewCard, QrCard, ShortLinkCard } from './side';
import './links.css';

const UTM_LABELS: Record<UtmKey, [string, string]> = {
  source: ['Source', 'instagram'],
  medium: ['Medium', 'social'],
  campaign: ['Campaign', 'spring_launch'],
  term: ['Term', ''],
  content: ['Content', 'bio_link'],
};
const DEVICE_LABELS: Record<DeviceKey, string> = {
  ios: 'iPhone and iPad',
  android: 'Android',
  desktop: 'Desktop',
};
const FIELD_KEY =
  /^(url|slug|hostname|tags(\.\d+)?|folderId|pixelIds(\.\d+)?|captureEmails|utm\.\w+|routing\.(ios|android|desktop)|routing\.geo(\..+)?|ab(\.\d+\.[uw])?|sched(\.\d+\.(from|url))?|password|geo-row\.\d+)$/;

/** The API's issues keyed for the form: geo keys that are not countries get a sentence a person can act on. */
function issuesOf(error: ApiError): Record<string, string> {
  const out = error.fieldErrors();
  for (const key of Object.keys(out)) {
    if (key === 'url' && out[key]?.startsWith('`url`')) {
      out[key] = 'The destination must be a full http(s) URL, e.g. https://example.com/page';
    }
    if (key.startsWith('routing.geo.') && out[key] === 'Invalid key in record') {
      out[key] = 'Use a 2-letter country code in capitals, e.g. US or GB';
    }
  }
  return out;
}

export function LinkEditorPage({ params, path }: { params: Record<string, string>; path: string }) {
  const id = params.id;
  const creating = id === undefined;
  const session = useAuthed();
  const { features } = session;
  const loaded = useApi<Link>(creating ? null : `/links/${id}`);
  const folders = useApi<{ folders: Folder[] }>(features.folders ? '/folders' : null);
  const pixels = useApi<{ pixels: Pixel[] }>(features.pixelInjection ? '/pixels' : null);

  const [link, setLink] = useState<Link | null>(null);
  const [initial, setInitial] = useState<LinkForm | null>(creating ? emptyForm() : null);
  const [form, setForm] = useState<LinkForm | null>(creating ? emptyForm() : null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string>();
  const [conflict, setConflict] = useState<string>();
  const [success, setSuccess] = useState<string | undefined>(
    hashQuery(path).get('created') ? 'Link created. It is live: share it anywhere.' : undefined,
  );
  const [busy, setBusy] = useState(false);
  const [archiving, setArchiving] = useState(false);
  const topRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!loaded.data) return;
    setLink(loaded.data);
    setInitial(formFromLink(loaded.data));
    setForm(formFromLink(loaded.data));
  }, [loaded.data]);

  // After a failed save, take the person to the first field that needs them (or the banner).
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt === 0) return;
    const invalid = document.querySelector<HTMLElement>('.lk-link-editor [aria-invalid="true"]');
    if (invalid) invalid.focus();
    else topRef.current?.scrollIntoView({ block: 'start' });
  }, [attempt]);

  if (!creating && loaded.error) {
    return (
      <>
        <PageHeader title="Edit link" />
        <Banner>{loaded.error}</Banner>
        <a href="#/links">Back to links</a>
      </>
    );
  }
  if (!form || !initial) return <Loading label="Loading link" />;

  const readOnly = link?.readOnly === true;
  const update = (patchForm: Partial<LinkForm>) => setForm({ ...form, ...patchForm });
  const err = (key: string): string | undefined => errors[key];
  const errorsUnder = (prefix: string) =>
    Object.keys(errors).some((key) => key === prefix || key.startsWith(`${prefix}.`));
  const stray = Object.entries(errors).filter(([key]) => !FIELD_KEY.test(key));

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!form || !initial) return;
    setFailure(undefined);
    setConflict(undefined);
    setSuccess(undefined);
    const local = localErrors(form);
    setErrors(local);
    if (Object.keys(local).length > 0) {
      setAttempt((n) => n + 1);
      return;
    }
    const body = changedBody(initial, form, creating);
    if (!creating && Object.keys(body).length === 0) {
      setSuccess('Nothing to save: no field changed.');
      return;
    }
    setBusy(true);
    try {
      if (creating) {
        const created = await post<Link>('/links', body);
        navigate(`/links/${created.id}?created=1`);
        return;
      }
      const saved = await patch<Link>(`/links/${id}`, body);
      setLink(saved);
      setInitial(formFromLink(saved));
      setForm(formFromLink(saved));
      setSuccess('Changes saved. The short link serves them right away.');
      topRef.current?.scrollIntoView({ block: 'start' });
    } catch (error) {
      if (error instanceof ApiError && error.body.issues) setErrors(issuesOf(error));
      else if (error instanceof ApiError && error.code === 'slug_taken')
        setErrors({ slug: 'This slug is already taken. Pick another one.' });
      else if (error instanceof ApiError && error.code === 'ab_routing_conflict')
        setConflict(
          'A link cannot have both A/B variants and routing. Remove the A/B variants, or clear device and country routing.',
        );
      else setFailure(linkErrorMessage(error));
      setAttempt((n) => n + 1);
    } finally {
      setBusy(false);
    }
  }

  const setGeo = (key: number, change: Partial<GeoRow>) =>
    update({ geo: form.geo.map((row) => (row.key === key ? { ...row, ...change } : row)) });
  const setAb = (key: number, change: Partial<AbRow>) =>
    update({ ab: form.ab.map((row) => (row.key === key ? { ...row, ...change } : row)) });
  const setSched = (key: number, change: Partial<SchedRow>) =>
    update({ sched: form.sched.map((row) => (row.key === key ? { ...row, ...change } : row)) });
  const geoError = (row: GeoRow) =>
    errors[`geo-row.${row.key}`] ?? errors[`routing.geo.${row.country.trim().toUpperCase()}`];
  const unplacedGeo = Object.entries(errors).filter(
    ([key]) =>
      key.startsWith('routing.geo') &&
      !form.geo.some((row) => key === `routing.geo.${row.country.trim().toUpperCase()}`),
  );
  const utmCount = UTM_KEYS.filter((key) => form.utm[key].trim() !== '').length;
  const deviceCount = DEVICE_KEYS.filter((key) => form.devices[key].trim() !== '').length;
  const abTotal = form.ab.reduce((sum, row) => sum + Math.max(0, Number(row.w) || 0), 0);
  const conflictBanner = conflict ? <Banner>{conflict}</Banner> : null;

  return (
    <div className="lk-link-editor" ref={topRef}>
      <PageHeader
        title={creating ? 'New link' : 'Edit link'}
        subtitle={
          creating
            ? 'Paste a destination; everything else is optional.'
            : link
              ? shortDisplay(link.shortUrl)
              : undefined
        }
        actions={
          <a className="btn btn-ghost" href="#/links">
            Back to links
          </a>
        }
      />
      {success ? <Banner kind="success">{success}</Banner> : null}
      {failure ? <Banner>{failure}</Banner> : null}
      {Object.keys(errors).length > 0 ? (
        <Banner>
          Some fields need a fix before this link can be saved.
          {stray.length > 0 ? (
            <ul className="lk-stray-errors">
              {stray.map(([key, message]) => (
                <li key={key}>
                  <code>{key}</code>: {message}
                </li>
              ))}
            </ul>
          ) : null}
        </Banner>
      ) : null}
      {readOnly ? (
        <Banner kind="warning">
          <strong>This link is read-only.</strong> Your workspace has more live links than the{' '}
          {TIER_NAMES[session.org.tier]} plan keeps editable ({LINK_CAPS[session.org.tier].toLocaleString()}),
          so the newest ones are locked. It <strong>still redirects</strong> exactly as before. Archive links
          you no longer need, or <a href="#/settings">upgrade</a>, to edit it again.
        </Banner>
      ) : null}

      <div className="lk-editor-layout">
        <form
          className="lk-editor-main"
          onSubmit={save}
          noValidate
          aria-label={creating ? 'New link' : 'Edit link'}
        >
          <fieldset disabled={readOnly}>
            <Card title="Destination">
              <TextField
                label="Destination URL"
                type="url"
                inputMode="url"
                placeholder="https://www.youtube.com/watch?v=…"
                value={form.url}
                error={err('url')}
                hint="Where the link goes. YouTube, Spotify, Amazon and dozens more open in their app."
                onChange={(event) => update({ url: event.target.value })}
                disabled={!creating && !features.editDestination}
                required
              />
              {!creating && !features.editDestination ? (
                <UpgradeNotice feature="editDestination" compact />
              ) : null}
              <div className="form-grid">
                {features.customSlugs ? (
                  <TextField
                    label="Custom slug"
                    value={form.slug}
                    error={err('slug')}
                    placeholder={creating ? 'spring-launch' : undefined}
                    hint={
                      creating
                        ? 'Letters, digits, - and _, up to 32. Blank: a 7-character slug is generated.'
                        : 'Changing it retires the old short URL.'
                    }
                    onChange={(event) => update({ slug: event.target.value })}
                  />
                ) : (
                  <div className="field">
                    <span className="label">Slug</span>
                    <p className="hint">
                      {creating ? 'A 7-character slug is generated for you.' : <code>{form.slug}</code>}
                    </p>
                    <UpgradeNotice feature="customSlugs" compact />
                  </div>
                )}
                <TextField
                  label="Custom domain"
                  value={form.hostname}
                  error={err('hostname')}
                  placeholder="links.example.com"
                  hint="Blank uses the default linkhop address."
                  onChange={(event) => update({ hostname: event.target.value })}
                />
              </div>
            </Card>

            <Card title="Organize">
              <TagInput
                value={form.tags}
                onChange={(tags) => update({ tags })}
                error={err('tags') ?? Object.entries(errors).find(([key]) => key.startsWith('tags.'))?.[1]}
              />
              <Gate feature="folders" compact>
                <FolderPicker
                  folders={folders.data?.folders ?? []}
                  value={form.folderId}
                  error={err('folderId')}
                  onChange={(folderId) => update({ folderId })}
                  onCreated={() => void folders.reload()}
                />
              </Gate>
            </Card>

            <Card title="Tracking">
              <Power
                title="UTM parameters"
                summary={utmCount > 0 ? `${utmCount} set` : 'Off'}
                active={utmCount > 0}
                invalid={errorsUnder('utm')}
              >
                <p className="hint lk-power-intro">
                  Added to every destination at redirect time (default, routed, A/B and scheduled), so your
                  analytics tool sees where the tap came from. Stored URLs stay as you typed them.
                </p>
                <div className="form-grid lk-utm-grid">
                  {UTM_KEYS.map((key) => (
                    <TextField
                      key={key}
                      label={`UTM ${UTM_LABELS[key][0].toLowerCase()}`}
                      value={form.utm[key]}
                      placeholder={UTM_LABELS[key][1]}
                      error={err(`utm.${key}`)}
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
                invalid={errorsUnder('pixelIds')}
              >
                <PixelPicker
                  pixels={pixels.data?.pixels ?? []}
                  value={form.pixelIds}
                  error={err('pixelIds')}
                  onChange={(pixelIds) => update({ pixelIds })}
                  onCreated={() => void pixels.reload()}
                />
              </Power>
              <Power
                title="Email capture"
                feature="audienceCapture"
                summary={form.captureEmails ? 'On' : 'Off'}
                active={form.captureEmails}
                invalid={errorsUnder('captureEmails')}
              >
                <Toggle
                  label="Ask visitors for their email"
                  checked={form.captureEmails}
                  onChange={(captureEmails) => update({ captureEmails })}
                  hint="Visitors can leave their email before they continue; it lands in your Audience."
                />
              </Power>
            </Card>

            <Card title="Smart routing" className="lk-routing-card">
              <p className="hint lk-card-intro">
                Send each visitor to the right place. A/B tests and routing cannot be combined on one link.
              </p>
              {conflictBanner}
              <Power
                title="Device routing"
                feature="platformTargeting"
                summary={deviceCount > 0 ? `${deviceCount} device${deviceCount > 1 ? 's' : ''}` : 'Off'}
                active={deviceCount > 0}
                invalid={DEVICE_KEYS.some((key) => errors[`routing.${key}`])}
              >
                <div className="form-grid">
                  {DEVICE_KEYS.map((key) => (
                    <TextField
                      key={key}
                      label={`${DEVICE_LABELS[key]} URL`}
                      type="url"
                      inputMode="url"
                      placeholder="https://…"
                      value={form.devices[key]}
                      error={err(`routing.${key}`)}
                      onChange={(event) =>
                        update({ devices: { ...form.devices, [key]: event.target.value } })
                      }
                    />
                  ))}
                </div>
              </Power>
              <Power
                title="Country routing"
                feature="geoRouting"
                summary={
                  form.geo.length > 0
                    ? `${form.geo.length} countr${form.geo.length > 1 ? 'ies' : 'y'}`
                    : 'Off'
                }
                active={form.geo.length > 0}
                invalid={
                  errorsUnder('routing.geo') || Object.keys(errors).some((k) => k.startsWith('geo-row.'))
                }
              >
                <p className="hint lk-power-intro">
                  Visitors from a country go to its URL; everyone else gets the rest.
                </p>
                {unplacedGeo.map(([key, message]) => (
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
                        error={geoError(row)}
                        aria-label={`Country code, row ${index + 1}`}
                        onChange={(event) => setGeo(row.key, { country: event.target.value.toUpperCase() })}
                      />
                      <TextField
                        label="URL"
                        type="url"
                        inputMode="url"
                        placeholder="https://…"
                        value={row.url}
                        aria-label={`Country URL, row ${index + 1}`}
                        onChange={(event) => setGeo(row.key, { url: event.target.value })}
                      />
                      <Button
                        variant="ghost"
                        className="btn-small lk-row-remove"
                        onClick={() => update({ geo: form.geo.filter((r) => r.key !== row.key) })}
                      >
                        Remove<span className="sr-only"> country row {index + 1}</span>
                      </Button>
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
              <Power
                title="A/B test"
                feature="abTesting"
                summary={form.ab.length > 0 ? `${form.ab.length} variants` : 'Off'}
                active={form.ab.length > 0}
                invalid={errorsUnder('ab')}
              >
                <p className="hint lk-power-intro">
                  Split visitors between 2 to 4 destinations. Weights are relative: 1 and 1 is 50/50.
                </p>
                {err('ab') ? <p className="field-error">{err('ab')}</p> : null}
                <ol className="lk-rows">
                  {form.ab.map((row, index) => {
                    const w = Number(row.w);
                    const share = abTotal > 0 && w > 0 ? Math.round((w / abTotal) * 100) : null;
                    return (
                      <li key={row.key} className="lk-row lk-ab-row" data-variant={index}>
                        <TextField
                          label={`Variant ${String.fromCharCode(65 + index)} URL`}
                          type="url"
                          inputMode="url"
                          placeholder="https://…"
                          value={row.u}
                          error={err(`ab.${index}.u`)}
                          onChange={(event) => setAb(row.key, { u: event.target.value })}
                        />
                        <TextField
                          label="Weight"
                          className="lk-weight-input"
                          type="number"
                          min={0}
                          step="any"
                          value={row.w}
                          error={err(`ab.${index}.w`)}
                          hint={share !== null ? `${share}%` : undefined}
                          onChange={(event) => setAb(row.key, { w: event.target.value })}
                        />
                        <Button
                          variant="ghost"
                          className="btn-small lk-row-remove"
                          onClick={() => update({ ab: form.ab.filter((r) => r.key !== row.key) })}
                        >
                          Remove<span className="sr-only"> variant {String.fromCharCode(65 + index)}</span>
                        </Button>
                      </li>
                    );
                  })}
                </ol>
                <div className="lk-row-tools">
                  {form.ab.length === 0 ? (
                    <Button
                      className="btn-small"
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
                        disabled={form.ab.length >= 4}
                        onClick={() => update({ ab: [...form.ab, { key: rowKey(), u: '', w: '1' }] })}
                      >
                        Add a variant
                      </Button>
                      <Button variant="ghost" className="btn-small" onClick={() => update({ ab: [] })}>
                        End the test
                      </Button>
                      {form.ab.length >= 4 ? <span className="hint">4 variants at most.</span> : null}
                      {form.ab.length === 1 ? (
                        <span className="hint">Add a second variant to run a test.</span>
                      ) : null}
                    </>
                  )}
                </div>
              </Power>
              <Power
                title="Scheduled destinations"
                feature="scheduledLinks"
                summary={form.sched.length > 0 ? `${form.sched.length} scheduled` : 'Off'}
                active={form.sched.length > 0}
                invalid={errorsUnder('sched')}
              >
                <p className="hint lk-power-intro">
                  From each moment on, the link goes to that URL; the latest one that has started wins and
                  holds until the next. Before the first, visitors get the destination above. Times are in
                  your time zone.
                </p>
                {err('sched') ? <p className="field-error">{err('sched')}</p> : null}
                <ol className="lk-rows">
                  {form.sched.map((row, index) => (
                    <li key={row.key} className="lk-row lk-sched-row">
                      <TextField
                        label="Starts"
                        type="datetime-local"
                        value={row.from}
                        error={err(`sched.${index}.from`)}
                        aria-label={`Starts, entry ${index + 1}`}
                        onChange={(event) => setSched(row.key, { from: event.target.value })}
                      />
                      <TextField
                        label="URL (https)"
                        type="url"
                        inputMode="url"
                        placeholder="https://…"
                        value={row.url}
                        error={err(`sched.${index}.url`)}
                        aria-label={`URL (https), entry ${index + 1}`}
                        onChange={(event) => setSched(row.key, { url: event.target.value })}
                      />
                      <Button
                        variant="ghost"
                        className="btn-small lk-row-remove"
                        onClick={() => update({ sched: form.sched.filter((r) => r.key !== row.key) })}
                      >
                        Remove<span className="sr-only"> entry {index + 1}</span>
                      </Button>
                    </li>
                  ))}
                </ol>
                <div className="lk-row-tools">
                  <Button
                    className="btn-small"
                    disabled={form.sched.length >= 10}
                    onClick={() => update({ sched: [...form.sched, { key: rowKey(), from: '', url: '' }] })}
                  >
                    Schedule a destination
                  </Button>
                  {form.sched.length >= 10 ? <span className="hint">10 entries at most.</span> : null}
                </div>
              </Power>
            </Card>

            <Card title="Access">
              <Power
                title="Password"
                feature="passwordLinks"
                summary={
                  form.passwordMode === 'remove'
                    ? 'Removed on save'
                    : link?.hasPassword || form.passwordMode === 'set'
                      ? 'On'
                      : 'Off'
                }
                active={link?.hasPassword === true || form.passwordMode !== 'keep'}
                invalid={errorsUnder('password')}
              >
                <PasswordControl
                  hasPassword={link?.hasPassword === true}
                  form={form}
                  error={err('password')}
                  onChange={(change) => update(change)}
                />
              </Power>
            </Card>
          </fieldset>

          {!readOnly ? (
            <div className="lk-save-bar">
              <Button type="submit" variant="primary" busy={busy}>
                {creating ? 'Create link' : 'Save changes'}
              </Button>
              <a className="btn btn-ghost" href="#/links">
                Cancel
              </a>
            </div>
          ) : null}
        </form>

        {creating ? (
          <aside className="lk-editor-side" aria-label="About new links">
            <Card title="What you get" className="lk-about-card">
              <ul className="lk-about">
                <li>
                  <strong>Opens the app.</strong> Taps from Instagram, TikTok and other in-app browsers land
                  in YouTube, Spotify, Amazon and dozens more, not a login wall.
                </li>
                <li>
                  <strong>Every tap counted.</strong> Opened in the app, in the browser, or broken: see it in
                  Analytics.
                </li>
                <li>
                  <strong>Ready to share.</strong> After you create it: the short link, a QR code and its
                  preview.
                </li>
              </ul>
              <p className="hint">
                {TIER_NAMES[session.org.tier]} keeps up to {LINK_CAPS[session.org.tier].toLocaleString()} live
                links.
              </p>
            </Card>
          </aside>
        ) : null}
        {link ? (
          <aside className="lk-editor-side" aria-label="Link tools">
            <ShortLinkCard link={link} />
            <QrCard link={link} />
            <PreviewCard link={link} />
            <Card title="Archive">
              <p className="hint">Hide it from your lists and free a slot. It keeps redirecting.</p>
              <Button variant="danger" className="btn-small" onClick={() => setArchiving(true)}>
                Archive link
              </Button>
            </Card>
          </aside>
        ) : null}
      </div>

      <ArchiveDialog
        link={archiving ? link : null}
        onClose={() => setArchiving(false)}
        onArchived={(archived) =>
          navigate(`/links?archived=${encodeURIComponent(shortDisplay(archived.shortUrl))}`)
        }
      />
    </div>
  );
}

function FolderPicker({
  folders,
  value,
  error,
  onChange,
  onCreated,
}: {
  folders: Folder[];
  value: string;
  error: string | undefined;
  onChange: (id: string) => void;
  onCreated: () => void;
}) {
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function create() {
    setBusy(true);
    setNameError(undefined);
    try {
      const folder = await post<Folder>('/folders', { name });
      onCreated();
      onChange(folder.id);
      setAdding(false);
      setName('');
    } catch (failure) {
      setNameError(
        failure instanceof ApiError ? (failure.fieldErrors().name ?? linkErrorMessage(failure)) : 'Failed',
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="lk-folder-picker">
      <SelectField
        label="Folder"
        value={value}
        error={error}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="">No folder</option>
        {folders.map((folder) => (
          <option key={folder.id} value={folder.id}>
            {folder.name}
          </option>
        ))}
      </SelectField>
      {adding ? (
        <div className="lk-inline-create">
          <TextField
            label="New folder name"
            value={name}
            error={nameError}
            onChange={(event) => setName(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                void create();
              }
            }}
          />
          <Button className="btn-small" busy={busy} onClick={() => void create()}>
            Create folder
          </Button>
          <Button variant="ghost" className="btn-small" onClick={() => setAdding(false)}>
            Cancel
          </Button>
        </div>
      ) : (
        <Button variant="ghost" className="btn-small" onClick={() => setAdding(true)}>
          New folder
        </Button>
      )}
    </div>
  );
}

const PIXEL_TYPES = {
  meta: { label: 'Meta pixel', hint: '15 or 16 digits' },
  tiktok: { label: 'TikTok pixel', hint: '20 capital letters and digits' },
  gtm: { label: 'Google Tag Manager', hint: 'GTM- then 4 to 10 capital letters and digits' },
} as const;

function PixelPicker({
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
  const [draft, setDraft] = useState<{ type: keyof typeof PIXEL_TYPES; pixelId: string; name: string }>({
    type: 'meta',
    pixelId: '',
    name: '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [adding, setAdding] = useState(false);
  async function create() {
    setBusy(true);
    setErrors({});
    try {
      const pixel = await post<Pixel>('/pixels', draft);
      onCreated();
      if (value.length < 10) onChange([...value, pixel.id]);
      setDraft({ type: draft.type, pixelId: '', name: '' });
      setAdding(false);
    } catch (failure) {
      if (failure instanceof ApiError && failure.body.issues) setErrors(failure.fieldErrors());
      else setErrors({ pixelId: linkErrorMessage(failure) });
    } finally {
      setBusy(false);
    }
  }
  // Enter adds the pixel instead of submitting the link form around it.
  const onEnter = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    void create();
  };
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
      {adding ? (
        <div className="lk-inline-create lk-pixel-create">
          <div className="form-grid">
            <SelectField
              label="Pixel type"
              value={draft.type}
              onChange={(event) =>
                setDraft({ ...draft, type: event.target.value as keyof typeof PIXEL_TYPES })
              }
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
              onKeyDown={onEnter}
              onChange={(event) => setDraft({ ...draft, pixelId: event.target.value })}
            />
            <TextField
              label="Pixel name"
              value={draft.name}
              placeholder="Spring campaign"
              error={errors.name}
              onKeyDown={onEnter}
              onChange={(event) => setDraft({ ...draft, name: event.target.value })}
            />
          </div>
          <div className="lk-row-tools">
            <Button className="btn-small" busy={busy} onClick={() => void create()}>
              Add pixel
            </Button>
            <Button variant="ghost" className="btn-small" onClick={() => setAdding(false)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <Button className="btn-small" onClick={() => setAdding(true)}>
          New pixel
        </Button>
      )}
    </div>
  );
}

function PasswordControl({
  hasPassword,
  form,
  error,
  onChange,
}: {
  hasPassword: boolean;
  form: LinkForm;
  error: string | undefined;
  onChange: (change: Partial<LinkForm>) => void;
}) {
  const field = (
    <TextField
      label={hasPassword ? 'New password' : 'Password'}
      type="password"
      autoComplete="new-password"
      value={form.password}
      error={error}
      maxLength={200}
      hint="Visitors type it once before they continue."
      onChange={(event) => onChange({ password: event.target.value })}
    />
  );
  if (!hasPassword) {
    return (
      <>
        <Toggle
          label="Ask visitors for a password"
          checked={form.passwordMode === 'set'}
          onChange={(on) => onChange({ passwordMode: on ? 'set' : 'keep', password: '' })}
        />
        {form.passwordMode === 'set' ? field : null}
      </>
    );
  }
  return (
    <>
      <p className="lk-password-state">
        {form.passwordMode === 'remove'
          ? 'The password is removed when you save: anyone with the link gets through.'
          : 'This link asks visitors for a password. It is stored hashed and never shown.'}
      </p>
      {form.passwordMode === 'set' ? field : null}
      <div className="lk-row-tools">
        {form.passwordMode === 'keep' ? (
          <>
            <Button className="btn-small" onClick={() => onChange({ passwordMode: 'set', password: '' })}>
              Change password
            </Button>
            <Button
              variant="danger"
              className="btn-small"
              onClick={() => onChange({ passwordMode: 'remove' })}
            >
              Remove password
            </Button>
          </>
        ) : (
          <Button
            variant="ghost"
            className="btn-small"
            onClick={() => onChange({ passwordMode: 'keep', password: '' })}
          >
            Keep the current password
          </Button>
        )}
      </div>
    </>
  );
}

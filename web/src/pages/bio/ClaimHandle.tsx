import { type FormEvent, useState } from 'react';
import { put } from '../../api/client';
import type { BioPage, Block } from '../../api/types';
import { Button, PageHeader, TextField } from '../../components/ui';
import { useAuthed } from '../../session';
import { profileFieldErrors, siteOrigin } from './model';
import { BioPreview } from './PhonePreview';
import { HandleField, NoteBanner, textBinder, useSave } from './parts';

/** What the claim step's phone shows: a page like the one the creator is about to make. */
const SAMPLE_BLOCKS: Block[] = [
  { t: 'header', id: 's1', text: 'New this week' },
  { t: 'link', id: 's2', linkId: '', label: 'Watch the new video', note: 'Opens in the YouTube app' },
  { t: 'link', id: 's3', linkId: '', label: 'Listen on Spotify' },
  { t: 'text', id: 's4', text: 'Thanks for being here!' },
];

/** The friendly first step: a handle (and a display name), with a preview of what it becomes. */
export function ClaimHandle({ onClaimed }: { onClaimed: (page: BioPage) => void }) {
  const session = useAuthed();
  const [form, setForm] = useState({ handle: '', title: session.org.name });
  const claim = useSave(profileFieldErrors);
  const bind = textBinder(form, claim.errors, setForm);
  const shown = form.handle.trim().toLowerCase() || 'yourname';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void claim.run(async () => {
      onClaimed(
        await put<BioPage>('/bio', { handle: form.handle.trim(), title: form.title.trim() || undefined }),
      );
      return undefined;
    });
  };

  return (
    <>
      <PageHeader
        title="Bio page"
        subtitle="One link for your profile that opens every app: YouTube, Spotify, shops, all of it."
      />
      <div className="claim">
        <section className="card claim-card" aria-labelledby="claim-title">
          <p className="eyebrow">Step 1 of 2</p>
          <h2 id="claim-title" className="claim-title">
            Claim your handle
          </h2>
          <p className="muted claim-lede">
            Your page lives at <strong className="mono">/@handle</strong> on linkhop. It starts as a private
            draft: publish it when it looks right.
          </p>
          <NoteBanner note={claim.note} />
          <form onSubmit={submit} noValidate>
            <HandleField
              shownHandle={shown}
              rule="3 to 30 of a–z, 0–9, dot and underscore"
              placeholder="yourname"
              required
              {...bind('handle')}
            />
            <TextField
              label="Display name"
              maxLength={100}
              hint="Shown in large type at the top of your page"
              {...bind('title')}
            />
            <div className="form-actions">
              <Button type="submit" variant="primary" className="btn-large" busy={claim.busy}>
                Claim handle
              </Button>
            </div>
          </form>
        </section>
        <div className="claim-preview" aria-hidden="true">
          <BioPreview
            page={{ handle: shown, title: form.title || shown, bio: null, avatarUrl: null }}
            theme={null}
            blocks={SAMPLE_BLOCKS}
            links={new Map()}
            branded={false}
            origin={siteOrigin()}
            demo
          />
        </div>
      </div>
    </>
  );
}

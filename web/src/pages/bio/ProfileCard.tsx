import type { FormEvent } from 'react';
import { put } from '../../api/client';
import type { BioPage } from '../../api/types';
import { Card, TextArea, TextField } from '../../components/ui';
import { type Profile, profileFieldErrors, profileOf, publicPageUrl } from './model';
import {
  type CardSaveProps,
  HandleField,
  NoteBanner,
  SaveBar,
  SectionTitle,
  textBinder,
  useSave,
} from './parts';

/**
 * Handle, display name, bio and avatar. The values live in the editor (the preview draws them before
 * saving); this card owns their errors and the save.
 */
export function ProfileCard({
  profile,
  onProfileChange,
  saved,
  onSaved,
  dirty,
}: CardSaveProps & {
  profile: Profile;
  onProfileChange: (profile: Profile) => void;
}) {
  const request = useSave(profileFieldErrors);
  const bind = textBinder(profile, request.errors, onProfileChange);

  const save = (event: FormEvent) => {
    event.preventDefault();
    void request.run(async () => {
      const page = await put<BioPage>('/bio', {
        handle: profile.handle.trim(),
        title: profile.title,
        bio: profile.bio.trim() ? profile.bio : null,
        avatarUrl: profile.avatarUrl.trim() ? profile.avatarUrl.trim() : null,
      });
      onSaved(page);
      onProfileChange(profileOf(page));
      return page.handle !== saved.handle
        ? `Saved. Your page now lives at ${publicPageUrl(page.handle)}.`
        : 'Profile saved.';
    });
  };

  return (
    <Card title={<SectionTitle text="Profile" dirty={dirty} />}>
      <form onSubmit={save} noValidate>
        <NoteBanner note={request.note} />
        <div className="form-grid">
          <HandleField shownHandle={profile.handle.trim().toLowerCase()} {...bind('handle')} />
          <TextField label="Display name" maxLength={100} {...bind('title')} />
        </div>
        <TextArea
          label="Bio"
          maxLength={500}
          rows={3}
          placeholder="Filmmaker and coffee nerd. New videos every Friday."
          hint={`${profile.bio.length} / 500`}
          {...bind('bio')}
        />
        <TextField
          label="Avatar URL"
          type="url"
          placeholder="https://…/me.jpg"
          hint="An https:// image. Without one, your initial is shown on the accent colour."
          {...bind('avatarUrl')}
        />
        <SaveBar
          label="Save profile"
          busy={request.busy}
          dirty={dirty}
          onDiscard={() => onProfileChange(profileOf(saved))}
        />
      </form>
    </Card>
  );
}

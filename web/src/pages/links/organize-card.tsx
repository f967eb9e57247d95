import { useState } from 'react';
import { ApiError, post } from '../../api/client';
import type { Folder } from '../../api/types';
import { UpgradeLabel } from '../../components/gate';
import { Button, Card, SelectField, TextField } from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { linkErrorMessage } from './common';
import type { EditorCardProps } from './form';
import { TagInput, useInlineCreate } from './inputs';

/** Where the link is filed: its tags and its folder. */
export function OrganizeCard({ form, update, errors }: EditorCardProps) {
  const canFile = useAuthed().features.folders;
  const folders = useApi<{ folders: Folder[] }>(canFile ? '/folders' : null);
  // A tag's own error (`tags.3`) shows under the one tags field.
  const tagError = errors.of('tags') ?? errors.entries.find(([key]) => key.startsWith('tags.'))?.[1];
  return (
    <Card title="Organize">
      <TagInput value={form.tags} onChange={(tags) => update({ tags })} error={tagError} />
      {canFile ? (
        <FolderPicker
          folders={folders.data?.folders ?? []}
          value={form.folderId}
          error={errors.of('folderId')}
          onChange={(folderId) => update({ folderId })}
          onCreated={() => void folders.reload()}
        />
      ) : (
        <div className="field">
          <span className="label">Folder</span>
          <UpgradeLabel feature="folders" />
        </div>
      )}
    </Card>
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
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string>();
  const creator = useInlineCreate(
    async () => {
      setNameError(undefined);
      const folder = await post<Folder>('/folders', { name });
      onCreated();
      onChange(folder.id);
      setName('');
    },
    (failure) =>
      setNameError(
        failure instanceof ApiError ? (failure.fieldErrors().name ?? linkErrorMessage(failure)) : 'Failed',
      ),
  );
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
      {creator.adding ? (
        <div className="lk-inline-create">
          <TextField
            label="New folder name"
            value={name}
            error={nameError}
            onChange={(event) => setName(event.target.value)}
            onKeyDown={creator.onEnter}
          />
          <Button className="btn-small" busy={creator.busy} onClick={() => void creator.run()}>
            Create folder
          </Button>
          <Button variant="ghost" className="btn-small" onClick={() => creator.setAdding(false)}>
            Cancel
          </Button>
        </div>
      ) : (
        <Button variant="ghost" className="btn-small" onClick={() => creator.setAdding(true)}>
          New folder
        </Button>
      )}
    </div>
  );
}

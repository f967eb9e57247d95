import type { Folder } from '../../api/types';
import { SelectField } from '../../components/ui';

/** The folder and tag filters of the links list and the analytics page: blank is "all". */

export function FolderFilter({
  folders,
  value,
  onChange,
}: {
  folders: Folder[];
  value: string;
  onChange: (folderId: string) => void;
}) {
  return (
    <SelectField label="Folder" value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">All folders</option>
      {folders.map((folder) => (
        <option key={folder.id} value={folder.id}>
          {folder.name}
        </option>
      ))}
    </SelectField>
  );
}

/** `tags` in the order shown, each with the number of links that carry it when that is known. */
export function TagFilter({
  tags,
  value,
  onChange,
}: {
  tags: { name: string; count?: number }[];
  value: string;
  onChange: (tag: string) => void;
}) {
  // A tag from a shared URL that no live link carries any more stays selectable, so the filter shows it.
  const stale = value !== '' && !tags.some((tag) => tag.name === value);
  return (
    <SelectField label="Tag" value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">All tags</option>
      {stale ? <option value={value}>{value}</option> : null}
      {tags.map((tag) => (
        <option key={tag.name} value={tag.name}>
          {tag.count === undefined ? tag.name : `${tag.name} (${tag.count})`}
        </option>
      ))}
    </SelectField>
  );
}

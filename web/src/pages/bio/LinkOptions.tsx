import type { Block, Link } from '../../api/types';
import { linkOptionLabel } from './model';

/** What every kind's form gets: its block, the workspace's links, its errors by field, and the setter. */
export interface KindFieldsProps<B extends Block> {
  block: B;
  links: Link[];
  errors: Record<string, string>;
  onChange: (next: Block) => void;
}

/**
 * The workspace's links as options; a value that is not among them (none chosen yet, or an archived
 * link) gets an option of its own so the select still shows it.
 */
export function LinkOptions({ links, value }: { links: Link[]; value: string }) {
  return (
    <>
      {value === '' || !links.some((l) => l.id === value) ? (
        <option value={value}>{value === '' ? 'Choose a link…' : 'The current link (archived)'}</option>
      ) : null}
      {links.map((link) => (
        <option key={link.id} value={link.id}>
          {linkOptionLabel(link)}
        </option>
      ))}
    </>
  );
}

import { useEffect, useRef } from 'react';
import type { Block } from '../../api/types';
import { SelectField, TextArea, TextField } from '../../components/ui';
import { type KindFieldsProps, LinkOptions } from './LinkOptions';
import { suggestLabel } from './model';
import { textBinder } from './parts';
import { SocialFields } from './SocialFields';

/** The open block's inputs, one form per kind. Edits go straight to the editor's unsaved list. */

type BlockOf<K extends Block['t']> = Extract<Block, { t: K }>;

export function BlockFields({
  focusFirst,
  onFocused,
  ...props
}: KindFieldsProps<Block> & {
  /** A block just added: its first input takes the keyboard. */
  focusFirst: boolean;
  onFocused: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!focusFirst) return;
    ref.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
    ref.current?.scrollIntoView({ block: 'nearest' });
    onFocused();
  }, [focusFirst, onFocused]);

  const { block } = props;
  return (
    <div className="blk-edit" ref={ref}>
      {block.t === 'link' ? <LinkFields {...props} block={block} /> : null}
      {block.t === 'header' ? <HeaderFields {...props} block={block} /> : null}
      {block.t === 'text' ? <TextFields {...props} block={block} /> : null}
      {block.t === 'social' ? <SocialFields {...props} block={block} /> : null}
    </div>
  );
}

function LinkFields({ block, links, errors, onChange }: KindFieldsProps<BlockOf<'link'>>) {
  const bind = textBinder(block, errors, onChange);
  const chooseLink = (linkId: string) => {
    const previous = links.find((l) => l.id === block.linkId);
    // A label still equal to the old link's suggestion follows the new link.
    const relabel = !block.label.trim() || block.label === suggestLabel(previous);
    const label = relabel ? suggestLabel(links.find((l) => l.id === linkId)) : block.label;
    onChange({ ...block, linkId, label });
  };
  return (
    <div className="link-fields">
      <SelectField
        label="Link"
        value={block.linkId}
        error={errors.linkId}
        onChange={(event) => chooseLink(event.target.value)}
      >
        <LinkOptions links={links} value={block.linkId} />
      </SelectField>
      <TextField label="Label" maxLength={120} placeholder="Watch my new video" {...bind('label')} />
      <TextField label="Note (optional)" maxLength={200} placeholder="New every Friday" {...bind('note')} />
    </div>
  );
}

function HeaderFields({ block, errors, onChange }: KindFieldsProps<BlockOf<'header'>>) {
  const bind = textBinder(block, errors, onChange);
  return <TextField label="Header text" maxLength={120} placeholder="Latest releases" {...bind('text')} />;
}

function TextFields({ block, errors, onChange }: KindFieldsProps<BlockOf<'text'>>) {
  const bind = textBinder(block, errors, onChange);
  return (
    <TextArea label="Text" maxLength={1000} rows={3} hint={`${block.text.length} / 1000`} {...bind('text')} />
  );
}

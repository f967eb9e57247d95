import { type RefObject, useRef, useState } from 'react';
import type { Block, Link } from '../../api/types';
import { BlockFields } from './BlockFields';
import { BlockCaption, BlockRow, KindIcon, type StatRow } from './BlockRow';
import { type BlockKind, blockName, KIND_NAMES, moveItem, newBlock } from './model';
import { useDragReorder, useFocusAfterRender } from './reorder';

/**
 * The ordered block list: add, edit, delete, and reorder by dragging the grip (native HTML5 drag and
 * drop) or with the Move up / Move down buttons. Nothing is written until the page saves the array.
 */

export interface BlocksEditorProps {
  blocks: Block[];
  onChange: (blocks: Block[]) => void;
  links: Link[];
  linkMap: ReadonlyMap<string, Link>;
  errors: Record<string, Record<string, string>>;
  stats: ReadonlyMap<string, StatRow> | null;
  /** Days the stats cover. */
  statsWindow: number;
}

const ADDABLE_KINDS: BlockKind[] = ['link', 'header', 'text', 'social'];

export function BlocksEditor({
  blocks,
  onChange,
  links,
  linkMap,
  errors,
  stats,
  statsWindow,
}: BlocksEditorProps) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [focusId, setFocusId] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const listRef = useRef<HTMLOListElement>(null);
  const addRef = useRef<HTMLFieldSetElement>(null);
  const focusAfterRender = useFocusAfterRender(listRef);

  const update = (id: string, next: Block) => onChange(blocks.map((b) => (b.id === id ? next : b)));

  const move = (from: number, to: number, viaKeyboard: boolean) => {
    const block = blocks[from];
    if (!block || to < 0 || to >= blocks.length || from === to) return;
    onChange(moveItem(blocks, from, to));
    setAnnouncement(`Moved ${blockName(block)} to position ${to + 1} of ${blocks.length}.`);
    if (viaKeyboard) focusAfterRender(`[data-move="${block.id}-${to < from ? 'up' : 'down'}"]`);
  };
  const drag = useDragReorder(
    blocks.map((b) => b.id),
    (from, to) => move(from, to, false),
  );

  const add = (kind: BlockKind) => {
    const block = newBlock(kind, links, blocks);
    onChange([...blocks, block]);
    setOpen((prev) => new Set(prev).add(block.id));
    setFocusId(block.id);
  };

  const remove = (block: Block) => {
    const index = blocks.findIndex((b) => b.id === block.id);
    const neighbour = blocks[index + 1] ?? blocks[index - 1];
    onChange(blocks.filter((b) => b.id !== block.id));
    setAnnouncement(`Removed ${blockName(block)}.`);
    // Keep the keyboard where it was: on the next block's Edit button, else on the add buttons.
    focusAfterRender(neighbour ? `[data-edit="${neighbour.id}"]` : null);
    if (!neighbour)
      requestAnimationFrame(() => addRef.current?.querySelector<HTMLButtonElement>('button')?.focus());
  };

  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="blocks">
      {blocks.length === 0 ? (
        <NoBlocksYet />
      ) : (
        <ol className="blk-list" ref={listRef} aria-label="Blocks, in page order">
          {blocks.map((block, index) => {
            const blockErrors = errors[block.id];
            // A block with errors stays open so they can be seen.
            const isOpen = open.has(block.id) || Boolean(blockErrors);
            return (
              <BlockRow
                key={block.id}
                block={block}
                stateClass={`${drag.rowClass(index)}${blockErrors ? ' blk-invalid' : ''}`}
                dropHandlers={drag.rowHandlers(index)}
                gripHandlers={drag.gripHandlers(index)}
                isFirst={index === 0}
                isLast={index === blocks.length - 1}
                isOpen={isOpen}
                caption={<BlockCaption block={block} linkMap={linkMap} stats={stats} window={statsWindow} />}
                onMove={(direction) => move(index, direction === 'up' ? index - 1 : index + 1, true)}
                onToggle={() => toggle(block.id)}
                onRemove={() => remove(block)}
              >
                {isOpen ? (
                  <BlockFields
                    block={block}
                    links={links}
                    errors={blockErrors ?? {}}
                    onChange={(next) => update(block.id, next)}
                    focusFirst={focusId === block.id}
                    onFocused={() => setFocusId(null)}
                  />
                ) : null}
                {blockErrors?._ ? <p className="field-error blk-error">{blockErrors._}</p> : null}
              </BlockRow>
            );
          })}
        </ol>
      )}
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
      <AddBlockButtons ref={addRef} links={links} onAdd={add} />
    </div>
  );
}

function NoBlocksYet() {
  return (
    <div className="blocks-empty">
      <p className="blocks-empty-title">Your page has no blocks yet</p>
      <p className="muted">
        Start with a header, then add the links your audience is looking for. Each link block opens the native
        app when tapped inside Instagram or TikTok.
      </p>
    </div>
  );
}

/** One button per kind; link and social blocks need a link to point at. */
function AddBlockButtons({
  ref,
  links,
  onAdd,
}: {
  ref: RefObject<HTMLFieldSetElement | null>;
  links: Link[];
  onAdd: (kind: BlockKind) => void;
}) {
  return (
    <fieldset className="blk-add" ref={ref}>
      <legend>Add a block</legend>
      <div className="blk-add-row">
        {ADDABLE_KINDS.map((kind) => (
          <button
            key={kind}
            type="button"
            className="blk-add-btn"
            onClick={() => onAdd(kind)}
            disabled={(kind === 'link' || kind === 'social') && links.length === 0}
          >
            <KindIcon kind={kind} />
            {kind === 'social' ? 'Social' : KIND_NAMES[kind]}
          </button>
        ))}
      </div>
      {links.length === 0 ? (
        <p className="hint">
          Link and social blocks point at your linkhop links. <a href="#/links/new">Create a link</a> first.
        </p>
      ) : null}
    </fieldset>
  );
}

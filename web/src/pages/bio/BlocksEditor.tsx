import { type DragEvent, useEffect, useRef, useState } from 'react';
import type { BioStats, Block, Link } from '../../api/types';
import { Button, formatNumber, formatRate, SelectField, TextArea, TextField } from '../../components/ui';
import {
  type BlockKind,
  blockName,
  KIND_NAMES,
  linkOptionLabel,
  moveItem,
  newBlock,
  SOCIAL_KEYS,
  socialName,
  suggestLabel,
} from './model';

/**
 * The ordered block list: add, edit, delete, and reorder by dragging the grip (native HTML5 drag and
 * drop) or with the Move up / Move down buttons. Nothing is written until the page saves the array.
 */

type StatRow = BioStats['blocks'][number];

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

const KIND_ICONS: Record<BlockKind, string> = { link: '↗', header: 'H', text: '¶', social: '@' };

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
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const listRef = useRef<HTMLOListElement>(null);
  const pendingFocus = useRef<string | null>(null);
  const addRef = useRef<HTMLFieldSetElement>(null);

  // After a keyboard move the DOM node moved too: put focus back on the button that was pressed.
  useEffect(() => {
    const selector = pendingFocus.current;
    if (!selector) return;
    pendingFocus.current = null;
    const target = listRef.current?.querySelector<HTMLButtonElement>(selector);
    if (target && !target.disabled) target.focus();
    else if (selector.startsWith('[data-move')) {
      const other = selector.endsWith('-up"]')
        ? selector.replace('-up"]', '-down"]')
        : selector.replace('-down"]', '-up"]');
      listRef.current?.querySelector<HTMLButtonElement>(other)?.focus();
    }
  });

  const update = (id: string, next: Block) => onChange(blocks.map((b) => (b.id === id ? next : b)));

  const move = (from: number, to: number, viaKeyboard: boolean) => {
    const block = blocks[from];
    if (!block || to < 0 || to >= blocks.length || from === to) return;
    onChange(moveItem(blocks, from, to));
    setAnnouncement(`Moved ${blockName(block)} to position ${to + 1} of ${blocks.length}.`);
    if (viaKeyboard) pendingFocus.current = `[data-move="${block.id}-${to < from ? 'up' : 'down'}"]`;
  };

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
    pendingFocus.current = neighbour ? `[data-edit="${neighbour.id}"]` : null;
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

  const onDragStart = (event: DragEvent<HTMLElement>, index: number) => {
    const block = blocks[index];
    if (!block) return;
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', block.id);
    const row = event.currentTarget.closest('li');
    if (row) event.dataTransfer.setDragImage(row, 24, 24);
    setDragFrom(index);
  };
  const onDragOver = (event: DragEvent<HTMLElement>, index: number) => {
    if (dragFrom === null) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    if (dragOver !== index) setDragOver(index);
  };
  const onDrop = (event: DragEvent<HTMLElement>, index: number) => {
    event.preventDefault();
    const id = event.dataTransfer.getData('text/plain');
    const from = id ? blocks.findIndex((b) => b.id === id) : dragFrom;
    if (from !== null && from >= 0) move(from, index, false);
    setDragFrom(null);
    setDragOver(null);
  };
  const onDragEnd = () => {
    setDragFrom(null);
    setDragOver(null);
  };

  return (
    <div className="blocks">
      {blocks.length === 0 ? (
        <div className="blocks-empty">
          <p className="blocks-empty-title">Your page has no blocks yet</p>
          <p className="muted">
            Start with a header, then add the links your audience is looking for. Each link block opens the
            native app when tapped inside Instagram or TikTok.
          </p>
        </div>
      ) : (
        <ol className="blk-list" ref={listRef} aria-label="Blocks, in page order">
          {blocks.map((block, index) => {
            const name = blockName(block);
            const blockErrors = errors[block.id];
            const isOpen = open.has(block.id) || Boolean(blockErrors);
            const dropClass =
              dragFrom !== null && dragOver === index && dragFrom !== index
                ? dragFrom < index
                  ? ' drop-after'
                  : ' drop-before'
                : '';
            return (
              <li
                key={block.id}
                className={`blk${dragFrom === index ? ' dragging' : ''}${dropClass}${blockErrors ? ' blk-invalid' : ''}`}
                data-block-id={block.id}
                onDragOver={(event) => onDragOver(event, index)}
                onDrop={(event) => onDrop(event, index)}
              >
                <div className="blk-row">
                  <span
                    className="blk-grip"
                    draggable
                    onDragStart={(event) => onDragStart(event, index)}
                    onDragEnd={onDragEnd}
                    title="Drag to reorder"
                    data-testid="drag-handle"
                    aria-hidden="true"
                  >
                    <svg viewBox="0 0 10 16" width="10" height="16" aria-hidden="true">
                      {[3, 8, 13].map((y) => (
                        <g key={y}>
                          <circle cx="2.5" cy={y} r="1.5" />
                          <circle cx="7.5" cy={y} r="1.5" />
                        </g>
                      ))}
                    </svg>
                  </span>
                  <span className={`blk-kind blk-kind-${block.t}`} aria-hidden="true">
                    {KIND_ICONS[block.t]}
                  </span>
                  <div className="blk-sum">
                    <span className="blk-type">{KIND_NAMES[block.t]}</span>
                    <span className="blk-name">{name}</span>
                    <BlockCaption block={block} linkMap={linkMap} stats={stats} window={statsWindow} />
                  </div>
                  <div className="blk-actions">
                    <button
                      type="button"
                      className="blk-icon"
                      aria-label={`Move ${name} up`}
                      data-move={`${block.id}-up`}
                      disabled={index === 0}
                      onClick={() => move(index, index - 1, true)}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="blk-icon"
                      aria-label={`Move ${name} down`}
                      data-move={`${block.id}-down`}
                      disabled={index === blocks.length - 1}
                      onClick={() => move(index, index + 1, true)}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      className="blk-text-btn"
                      aria-expanded={isOpen}
                      aria-label={`Edit ${name}`}
                      data-edit={block.id}
                      onClick={() => toggle(block.id)}
                    >
                      {isOpen ? 'Done' : 'Edit'}
                    </button>
                    <button
                      type="button"
                      className="blk-icon blk-delete"
                      aria-label={`Delete ${name}`}
                      onClick={() => remove(block)}
                    >
                      ×
                    </button>
                  </div>
                </div>
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
              </li>
            );
          })}
        </ol>
      )}
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
      <fieldset className="blk-add" ref={addRef}>
        <legend>Add a block</legend>
        <div className="blk-add-row">
          {(['link', 'header', 'text', 'social'] as BlockKind[]).map((kind) => (
            <button
              key={kind}
              type="button"
              className="blk-add-btn"
              onClick={() => add(kind)}
              disabled={(kind === 'link' || kind === 'social') && links.length === 0}
            >
              <span className={`blk-kind blk-kind-${kind}`} aria-hidden="true">
                {KIND_ICONS[kind]}
              </span>
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
    </div>
  );
}

function BlockCaption({
  block,
  linkMap,
  stats,
  window,
}: {
  block: Block;
  linkMap: ReadonlyMap<string, Link>;
  stats: ReadonlyMap<string, StatRow> | null;
  window: number;
}) {
  if (block.t === 'link') {
    const link = linkMap.get(block.linkId);
    const row = stats?.get(block.linkId);
    return (
      <span className="blk-caption">
        {link ? (
          <span className="blk-url">{link.shortUrl.replace(/^https?:\/\//, '')}</span>
        ) : block.linkId ? (
          <span>An archived link</span>
        ) : (
          <span className="blk-warn">No link chosen</span>
        )}
        {row ? (
          <span className="blk-stats" title={`Last ${window} days, sampled estimates`}>
            <span>
              {formatNumber(row.clicks)} {row.clicks === 1 ? 'tap' : 'taps'}
            </span>
            {row.appOpenRate !== null ? <span>{formatRate(row.appOpenRate)} opened the app</span> : null}
          </span>
        ) : null}
      </span>
    );
  }
  if (block.t === 'social') {
    return (
      <span className="blk-caption">
        {block.items.map((item) => socialName(item.key)).join(' · ') || 'No icons yet'}
      </span>
    );
  }
  return null;
}

function BlockFields({
  block,
  links,
  errors,
  onChange,
  focusFirst,
  onFocused,
}: {
  block: Block;
  links: Link[];
  errors: Record<string, string>;
  onChange: (next: Block) => void;
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

  const linkOptions = (value: string) => (
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

  return (
    <div className="blk-edit" ref={ref}>
      {block.t === 'link' ? (
        <div className="link-fields">
          <SelectField
            label="Link"
            value={block.linkId}
            error={errors.linkId}
            onChange={(event) => {
              const next = links.find((l) => l.id === event.target.value);
              const prev = links.find((l) => l.id === block.linkId);
              // A label still equal to the old link's suggestion follows the new link.
              const relabel = !block.label.trim() || block.label === suggestLabel(prev);
              onChange({
                ...block,
                linkId: event.target.value,
                label: relabel ? suggestLabel(next) : block.label,
              });
            }}
          >
            {linkOptions(block.linkId)}
          </SelectField>
          <TextField
            label="Label"
            value={block.label}
            maxLength={120}
            error={errors.label}
            placeholder="Watch my new video"
            onChange={(event) => onChange({ ...block, label: event.target.value })}
          />
          <TextField
            label="Note (optional)"
            value={block.note ?? ''}
            maxLength={200}
            error={errors.note}
            placeholder="New every Friday"
            onChange={(event) => onChange({ ...block, note: event.target.value })}
          />
        </div>
      ) : null}
      {block.t === 'header' ? (
        <TextField
          label="Header text"
          value={block.text}
          maxLength={120}
          error={errors.text}
          placeholder="Latest releases"
          onChange={(event) => onChange({ ...block, text: event.target.value })}
        />
      ) : null}
      {block.t === 'text' ? (
        <TextArea
          label="Text"
          value={block.text}
          maxLength={1000}
          rows={3}
          error={errors.text}
          hint={`${block.text.length} / 1000`}
          onChange={(event) => onChange({ ...block, text: event.target.value })}
        />
      ) : null}
      {block.t === 'social' ? (
        <div className="social-items">
          {block.items.map((item, index) => {
            const setItem = (next: { key: string; linkId: string }) =>
              onChange({ ...block, items: block.items.map((it, i) => (i === index ? next : it)) });
            const keys: string[] = SOCIAL_KEYS.includes(item.key as (typeof SOCIAL_KEYS)[number])
              ? [...SOCIAL_KEYS]
              : [item.key, ...SOCIAL_KEYS];
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: items have no id; the index is their identity
              <div className="social-item" key={index}>
                <SelectField
                  label={`Icon ${index + 1} network`}
                  value={item.key}
                  error={errors[`items.${index}.key`]}
                  onChange={(event) => setItem({ ...item, key: event.target.value })}
                >
                  {keys.map((key) => (
                    <option key={key} value={key}>
                      {socialName(key)}
                    </option>
                  ))}
                </SelectField>
                <SelectField
                  label={`Icon ${index + 1} link`}
                  value={item.linkId}
                  error={errors[`items.${index}.linkId`]}
                  onChange={(event) => setItem({ ...item, linkId: event.target.value })}
                >
                  {linkOptions(item.linkId)}
                </SelectField>
                <Button
                  variant="ghost"
                  className="btn-small social-remove"
                  aria-label={`Remove icon ${index + 1}`}
                  disabled={block.items.length === 1}
                  onClick={() => onChange({ ...block, items: block.items.filter((_, i) => i !== index) })}
                >
                  Remove
                </Button>
              </div>
            );
          })}
          {errors.items ? <p className="field-error">{errors.items}</p> : null}
          <Button
            className="btn-small"
            disabled={block.items.length >= 20}
            onClick={() =>
              onChange({
                ...block,
                items: [
                  ...block.items,
                  {
                    key: SOCIAL_KEYS.find((k) => !block.items.some((i) => i.key === k)) ?? 'website',
                    linkId: links[0]?.id ?? '',
                  },
                ],
              })
            }
          >
            + Add icon
          </Button>
        </div>
      ) : null}
    </div>
  );
}

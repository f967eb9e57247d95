import type { DragEvent, ReactNode } from 'react';
import type { BioStats, Block, Link } from '../../api/types';
import { formatNumber, formatRate } from '../../components/ui';
import { type BlockKind, blockName, KIND_NAMES, socialName, withoutScheme } from './model';

/** One block in the editor's list: grip, kind, a one-line summary and the row's buttons; `children` is
 * what shows below the row (the open block's fields, its error). */

export type StatRow = BioStats['blocks'][number];

const KIND_ICONS: Record<BlockKind, string> = { link: '↗', header: 'H', text: '¶', social: '@' };

export function KindIcon({ kind }: { kind: BlockKind }) {
  return (
    <span className={`blk-kind blk-kind-${kind}`} aria-hidden="true">
      {KIND_ICONS[kind]}
    </span>
  );
}

export interface BlockRowProps {
  block: Block;
  /** Extra classes from dragging and validation, each with its leading space. */
  stateClass: string;
  dropHandlers: {
    onDragOver: (event: DragEvent<HTMLElement>) => void;
    onDrop: (event: DragEvent<HTMLElement>) => void;
  };
  gripHandlers: {
    draggable: boolean;
    onDragStart: (event: DragEvent<HTMLElement>) => void;
    onDragEnd: () => void;
  };
  isFirst: boolean;
  isLast: boolean;
  isOpen: boolean;
  caption: ReactNode;
  onMove: (direction: 'up' | 'down') => void;
  onToggle: () => void;
  onRemove: () => void;
  children: ReactNode;
}

export function BlockRow({
  block,
  stateClass,
  dropHandlers,
  gripHandlers,
  isFirst,
  isLast,
  isOpen,
  caption,
  onMove,
  onToggle,
  onRemove,
  children,
}: BlockRowProps) {
  const name = blockName(block);
  return (
    <li className={`blk${stateClass}`} data-block-id={block.id} {...dropHandlers}>
      <div className="blk-row">
        <span
          className="blk-grip"
          {...gripHandlers}
          title="Drag to reorder"
          data-testid="drag-handle"
          aria-hidden="true"
        >
          <GripDots />
        </span>
        <KindIcon kind={block.t} />
        <div className="blk-sum">
          <span className="blk-type">{KIND_NAMES[block.t]}</span>
          <span className="blk-name">{name}</span>
          {caption}
        </div>
        <div className="blk-actions">
          <MoveButton name={name} blockId={block.id} direction="up" disabled={isFirst} onMove={onMove} />
          <MoveButton name={name} blockId={block.id} direction="down" disabled={isLast} onMove={onMove} />
          <button
            type="button"
            className="blk-text-btn"
            aria-expanded={isOpen}
            aria-label={`Edit ${name}`}
            data-edit={block.id}
            onClick={onToggle}
          >
            {isOpen ? 'Done' : 'Edit'}
          </button>
          <button
            type="button"
            className="blk-icon blk-delete"
            aria-label={`Delete ${name}`}
            onClick={onRemove}
          >
            ×
          </button>
        </div>
      </div>
      {children}
    </li>
  );
}

/** The keyboard's way to reorder; `data-move` lets focus find the button again after the move. */
function MoveButton({
  name,
  blockId,
  direction,
  disabled,
  onMove,
}: {
  name: string;
  blockId: string;
  direction: 'up' | 'down';
  disabled: boolean;
  onMove: (direction: 'up' | 'down') => void;
}) {
  return (
    <button
      type="button"
      className="blk-icon"
      aria-label={`Move ${name} ${direction}`}
      data-move={`${blockId}-${direction}`}
      disabled={disabled}
      onClick={() => onMove(direction)}
    >
      {direction === 'up' ? '↑' : '↓'}
    </button>
  );
}

function GripDots() {
  return (
    <svg viewBox="0 0 10 16" width="10" height="16" aria-hidden="true">
      {[3, 8, 13].map((y) => (
        <g key={y}>
          <circle cx="2.5" cy={y} r="1.5" />
          <circle cx="7.5" cy={y} r="1.5" />
        </g>
      ))}
    </svg>
  );
}

/** Under a link block: its short address and, where the plan has them, its taps and app-open rate. */
export function BlockCaption({
  block,
  linkMap,
  stats,
  window,
}: {
  block: Block;
  linkMap: ReadonlyMap<string, Link>;
  stats: ReadonlyMap<string, StatRow> | null;
  /** Days the stats cover. */
  window: number;
}) {
  if (block.t === 'social') {
    return (
      <span className="blk-caption">
        {block.items.map((item) => socialName(item.key)).join(' · ') || 'No icons yet'}
      </span>
    );
  }
  if (block.t !== 'link') return null;
  const link = linkMap.get(block.linkId);
  const row = stats?.get(block.linkId);
  return (
    <span className="blk-caption">
      {link ? (
        <span className="blk-url">{withoutScheme(link.shortUrl)}</span>
      ) : block.linkId ? (
        <span>An archived link</span>
      ) : (
        <span className="blk-warn">No link chosen</span>
      )}
      {row ? (
        <span className="blk-stats" title={`Last ${window} days, sampled estimates`}>
          <span>
            {formatNumber(row.clicks)} {row.clicks === 1 ? 'click' : 'clicks'}
          </span>
          {row.appOpenRate !== null ? <span>{formatRate(row.appOpenRate)} opened the app</span> : null}
        </span>
      ) : null}
    </span>
  );
}

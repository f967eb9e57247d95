import { type DragEvent, type RefObject, useEffect, useRef, useState } from 'react';

/**
 * Reordering support for the block list: native HTML5 drag and drop by a grip, and putting keyboard
 * focus back after a Move up / Move down button (or a delete) re-rendered the list.
 */

/**
 * Drag state over a list of rows. `move(from, to)` is called on a drop; the dragged row's id travels in
 * the drag data so a drop from a stale render still finds the right row.
 */
export function useDragReorder(ids: readonly string[], move: (from: number, to: number) => void) {
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const end = () => {
    setDragFrom(null);
    setDragOver(null);
  };

  /** ' dragging' on the row in hand; ' drop-before' / ' drop-after' where it would land. */
  const rowClass = (index: number): string => {
    const dragging = dragFrom === index ? ' dragging' : '';
    if (dragFrom === null || dragOver !== index || dragFrom === index) return dragging;
    return `${dragging}${dragFrom < index ? ' drop-after' : ' drop-before'}`;
  };

  /** Handlers for the row element: it is the drop target. */
  const rowHandlers = (index: number) => ({
    onDragOver: (event: DragEvent<HTMLElement>) => {
      if (dragFrom === null) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      if (dragOver !== index) setDragOver(index);
    },
    onDrop: (event: DragEvent<HTMLElement>) => {
      event.preventDefault();
      const id = event.dataTransfer.getData('text/plain');
      const from = id ? ids.indexOf(id) : dragFrom;
      if (from !== null && from >= 0) move(from, index);
      end();
    },
  });

  /** Handlers for the grip: the only part that starts a drag, so text in the row stays selectable. */
  const gripHandlers = (index: number) => ({
    draggable: true,
    onDragStart: (event: DragEvent<HTMLElement>) => {
      const id = ids[index];
      if (id === undefined) return;
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', id);
      const row = event.currentTarget.closest('li');
      if (row) event.dataTransfer.setDragImage(row, 24, 24);
      setDragFrom(index);
    },
    onDragEnd: end,
  });

  return { rowClass, rowHandlers, gripHandlers };
}

/**
 * After a keyboard move the row's DOM node moved too, and after a delete the pressed button is gone:
 * `focusAfterRender(selector)` focuses that button inside `container` once the list re-rendered. A move
 * button that became disabled (the row reached an end) hands focus to its opposite.
 */
export function useFocusAfterRender(container: RefObject<HTMLElement | null>) {
  const pending = useRef<string | null>(null);
  useEffect(() => {
    const selector = pending.current;
    if (!selector) return;
    pending.current = null;
    const target = container.current?.querySelector<HTMLButtonElement>(selector);
    if (target && !target.disabled) target.focus();
    else if (selector.startsWith('[data-move')) {
      const other = selector.endsWith('-up"]')
        ? selector.replace('-up"]', '-down"]')
        : selector.replace('-down"]', '-up"]');
      container.current?.querySelector<HTMLButtonElement>(other)?.focus();
    }
  });
  return (selector: string | null) => {
    pending.current = selector;
  };
}

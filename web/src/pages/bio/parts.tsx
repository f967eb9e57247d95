import { type ChangeEvent, type ComponentProps, type ReactNode, useState } from 'react';
import type { BioPage } from '../../api/types';
import { ConfirmDialog, useWrite } from '../../components/confirm';
import { Badge, Banner, Button, PageHeader, TextField } from '../../components/ui';
import { siteOrigin, withoutScheme } from './model';

/**
 * Pieces the bio editor and the media kit share: a save's busy state and note, the save row, card
 * titles, the confirm-first danger card, a load failure, new-tab links and the handle field.
 */

export type Note = { kind: 'success' | 'error'; text: string } | null;

const noFields = () => ({});

/**
 * A save with the dashboard's shared write handling (busy flag, field errors, failure text) plus the
 * success note the bio pages show: `save` returns that note's text, or nothing. `fieldErrorsOf` picks
 * the failures shown at inputs; by default none are, so every failure reads as the note.
 */
export function useSave(fieldErrorsOf: (error: unknown) => Record<string, string> = noFields) {
  const write = useWrite(fieldErrorsOf);
  const [success, setSuccess] = useState<string>();
  const run = async (save: () => Promise<string | undefined>) => {
    setSuccess(undefined);
    await write.run(async () => setSuccess(await save()));
  };
  /** Says `text` as a success (after a write elsewhere), replacing an earlier failure. */
  const announce = (text: string) => {
    write.reset();
    setSuccess(text);
  };
  const note: Note = write.error
    ? { kind: 'error', text: write.error }
    : success
      ? { kind: 'success', text: success }
      : null;
  return { busy: write.busy, errors: write.errors, note, run, announce };
}

/** What each editor card gets: the page as saved, its setter after a save, and its own unsaved state. */
export interface CardSaveProps {
  saved: BioPage;
  onSaved: (page: BioPage) => void;
  dirty: boolean;
}

export function NoteBanner({ note }: { note: Note }) {
  return note ? <Banner kind={note.kind}>{note.text}</Banner> : null;
}

/**
 * Binds form inputs to one object of strings: `{...bind('title')}` gives the value, the field's error
 * and an onChange that writes the new text back.
 */
export function textBinder<T extends object>(
  values: T,
  errors: Record<string, string>,
  onChange: (next: T) => void,
) {
  return (key: keyof T & string) => ({
    value: (values[key] as string | undefined) ?? '',
    error: errors[key],
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      onChange({ ...values, [key]: event.target.value }),
  });
}

/** Save (enabled once something changed), Discard while dirty, then any extra controls. */
export function SaveBar({
  label,
  busy,
  dirty,
  onSave,
  onDiscard,
  discardLabel = 'Discard',
  className = 'form-actions',
  children,
}: {
  label: string;
  busy: boolean;
  dirty: boolean;
  /** Without it the button submits its form. */
  onSave?: () => void;
  onDiscard?: () => void;
  discardLabel?: string;
  className?: string;
  children?: ReactNode;
}) {
  return (
    <div className={className}>
      <Button
        type={onSave ? 'button' : 'submit'}
        variant="primary"
        busy={busy}
        disabled={!dirty}
        onClick={onSave}
      >
        {label}
      </Button>
      {dirty && onDiscard ? (
        <Button variant="ghost" onClick={onDiscard}>
          {discardLabel}
        </Button>
      ) : null}
      {children}
    </div>
  );
}

/** A card title with an optional count, any badges, and "Unsaved" while the card has changes. */
export function SectionTitle({
  text,
  dirty,
  count,
  children,
}: {
  text: string;
  dirty: boolean;
  count?: number;
  children?: ReactNode;
}) {
  return (
    <span className="section-title">
      {text}
      {count !== undefined ? <span className="section-count">{count}</span> : null}
      {children}
      {dirty ? <Badge tone="warn">Unsaved</Badge> : null}
    </span>
  );
}

/**
 * A red card with one destructive button that asks first (the shared ConfirmDialog). `onConfirm` is
 * the request; `onDone` runs after it succeeded and the dialog closed.
 */
export function DangerZone({
  id,
  title,
  description,
  buttonLabel,
  confirmTitle,
  confirmLabel,
  onConfirm,
  onDone,
  children,
}: {
  id: string;
  title: string;
  description: string;
  buttonLabel: string;
  confirmTitle: string;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  onDone: () => void;
  /** What the dialog says will happen. */
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <section className="card danger-card" aria-labelledby={id}>
        <div>
          <h2 id={id}>{title}</h2>
          <p className="muted">{description}</p>
        </div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          {buttonLabel}
        </Button>
      </section>
      <ConfirmDialog
        open={open}
        title={confirmTitle}
        confirmLabel={confirmLabel}
        onConfirm={async () => {
          await onConfirm();
          setOpen(false);
          onDone();
        }}
        onClose={() => setOpen(false)}
      >
        {children}
      </ConfirmDialog>
    </>
  );
}

/** The page could not load its data: say so and offer another try. */
export function LoadFailed({
  title,
  message,
  onRetry,
}: {
  title: string;
  message: string;
  onRetry: () => void;
}) {
  return (
    <>
      <PageHeader title={title} />
      <Banner>{message}</Banner>
      <Button onClick={onRetry}>Try again</Button>
    </>
  );
}

/** A link that opens a public page in a new tab, marked with an arrow. */
export function NewTabLink({ href, className, label }: { href: string; className: string; label: string }) {
  return (
    <a className={className} href={href} target="_blank" rel="noopener">
      {label} <span aria-hidden="true">↗</span>
    </a>
  );
}

/** The handle input of the claim step and the profile card, with the address it becomes as its hint. */
export function HandleField({
  shownHandle,
  rule,
  ...rest
}: { shownHandle: string; rule?: string } & Omit<ComponentProps<typeof TextField>, 'label' | 'hint'>) {
  return (
    <TextField
      label="Handle"
      hint={
        <>
          <span className="mono url-hint">
            {withoutScheme(siteOrigin())}/@{shownHandle}
          </span>
          {rule ? ` · ${rule}` : null}
        </>
      }
      autoCapitalize="none"
      autoCorrect="off"
      spellCheck={false}
      maxLength={30}
      {...rest}
    />
  );
}

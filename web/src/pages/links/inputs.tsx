import { type ComponentProps, type KeyboardEvent, type ReactNode, useEffect, useId, useState } from 'react';
import type { Feature } from '../../api/types';
import { UpgradeLabel } from '../../components/gate';
import { Button, TextField } from '../../components/ui';
import { useAuthed } from '../../session';

/**
 * Small building blocks of the link editor: the tag chips, the collapsible power sections, and the
 * URL field and remove button its rows repeat.
 */

/** A destination URL field: the URL keyboard on phones and the `https://…` placeholder. */
export function UrlField(props: ComponentProps<typeof TextField>) {
  return <TextField type="url" inputMode="url" placeholder="https://…" {...props} />;
}

/** A row's remove button; `what` names the row for screen readers (`country row 2`, `variant B`). */
export function RemoveRowButton({ what, onClick }: { what: string; onClick: () => void }) {
  return (
    <Button variant="ghost" className="btn-small lk-row-remove" onClick={onClick}>
      Remove<span className="sr-only"> {what}</span>
    </Button>
  );
}

export function TagInput({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (tags: string[]) => void;
  error?: string | undefined;
}) {
  const id = useId();
  const [draft, setDraft] = useState('');
  const add = (parts: string[]) => {
    const next = [...value];
    for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
      if (!next.includes(part)) next.push(part);
    }
    if (next.length !== value.length) onChange(next);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add([draft]);
      setDraft('');
    } else if (event.key === 'Backspace' && draft === '' && value.length > 0) {
      onChange(value.slice(0, -1));
    }
  };
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>Tags</label>
      <div className="lk-chip-input">
        {value.map((tag) => (
          <span key={tag} className="lk-chip">
            {tag}
            <button
              type="button"
              className="lk-chip-remove"
              aria-label={`Remove tag ${tag}`}
              onClick={() => onChange(value.filter((t) => t !== tag))}
            >
              ×
            </button>
          </span>
        ))}
        <input
          id={id}
          value={draft}
          placeholder={value.length === 0 ? 'launch, merch…' : 'Add a tag'}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : `${id}-hint`}
          onChange={(event) => {
            const parts = event.target.value.split(',');
            if (parts.length > 1) {
              add(parts.slice(0, -1));
              setDraft(parts[parts.length - 1] ?? '');
            } else setDraft(event.target.value);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            add([draft]);
            setDraft('');
          }}
        />
      </div>
      {error ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : (
        <p className="hint" id={`${id}-hint`}>
          Press Enter or type a comma to add. Up to 20 tags; filter the links list by them.
        </p>
      )}
    </div>
  );
}

/**
 * One link power: a collapsible section (open when it holds a value or an error), or, when the plan
 * lacks the feature, its title with the one-line upgrade label instead of controls.
 */
export function Power({
  title,
  feature,
  summary,
  active,
  invalid,
  children,
}: {
  title: string;
  feature?: Feature;
  summary: string;
  active: boolean;
  invalid: boolean;
  children: ReactNode;
}) {
  const session = useAuthed();
  const [open, setOpen] = useState(active || invalid);
  useEffect(() => {
    if (invalid) setOpen(true);
  }, [invalid]);
  if (feature && !session.features[feature]) {
    return (
      <section className="lk-power lk-power-locked" aria-label={title}>
        <h3 className="lk-power-title">{title}</h3>
        <UpgradeLabel feature={feature} />
      </section>
    );
  }
  return (
    <details
      className={`lk-power${invalid ? ' lk-power-invalid' : ''}`}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        <span className="lk-power-title">{title}</span>
        <span className={`lk-power-summary${active ? ' lk-power-on' : ''}`}>{summary}</span>
      </summary>
      <div className="lk-power-body">{children}</div>
    </details>
  );
}

/**
 * A "New folder" / "New pixel" form inside the link form: open or closed, busy while `create` runs,
 * closed again when it succeeds; a failure goes to `onFailure` and the form stays open.
 */
export function useInlineCreate(create: () => Promise<void>, onFailure: (error: unknown) => void) {
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  async function run() {
    setBusy(true);
    try {
      await create();
      setAdding(false);
    } catch (error) {
      onFailure(error);
    } finally {
      setBusy(false);
    }
  }
  // Enter in one of its fields runs it, instead of submitting the link form around it.
  const onEnter = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    void run();
  };
  return { adding, setAdding, busy, run, onEnter };
}

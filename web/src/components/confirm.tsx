import { type ReactNode, useState } from 'react';
import { ApiError, messageOf } from '../api/client';
import { Banner, Button, Modal } from './ui';
import './confirm.css';

/**
 * Writes a person asks for, with one way to show that they are running and how they failed: `useWrite`
 * (busy flag, field and banner errors), `WriteForm` (a form that submits through it) and `ConfirmDialog`
 * (a yes/no question before a write that cannot be undone).
 */

type FieldErrors = Record<string, string>;

/** The server's Zod issues keyed by field; any other failure names no field. */
export function issuesOf(err: unknown): FieldErrors {
  return err instanceof ApiError ? err.fieldErrors() : {};
}

export interface Write {
  busy: boolean;
  /** A failure that no field claims, for a banner. */
  error: string | undefined;
  /** Failures at the fields they name (checked before sending, or refused by the server). */
  errors: FieldErrors;
  /**
   * Runs `write` unless `invalid` already names a field; true when it succeeded. A failure lands at
   * the fields `fieldErrorsOf` finds in it, else in `error`.
   */
  run: (write: () => Promise<void>, invalid?: FieldErrors) => Promise<boolean>;
  reset: () => void;
}

/** The busy flag and the failure of one write at a time: a form's submit, a toggle, a confirmed delete. */
export function useWrite(fieldErrorsOf: (err: unknown) => FieldErrors = issuesOf): Write {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [errors, setErrors] = useState<FieldErrors>({});
  const reset = () => {
    setError(undefined);
    setErrors({});
  };
  const run = async (write: () => Promise<void>, invalid: FieldErrors = {}) => {
    setError(undefined);
    setErrors(invalid);
    if (Object.keys(invalid).length > 0) return false;
    setBusy(true);
    try {
      await write();
      return true;
    } catch (err) {
      const fields = fieldErrorsOf(err);
      if (Object.keys(fields).length > 0) setErrors(fields);
      else setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, errors, run, reset };
}

/**
 * A yes/no question in a native dialog. `onConfirm` runs the write; its failure is shown inside the
 * dialog (the dialog stays open, so the person can retry or cancel), its success closes it.
 */
export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  danger = true,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}) {
  const write = useWrite();
  // Closing mid-write would hide the outcome, so the dialog waits for it.
  const close = () => {
    if (write.busy) return;
    write.reset();
    onClose();
  };
  const confirm = async () => {
    if (await write.run(onConfirm)) onClose();
  };
  return (
    <Modal open={open} title={title} onClose={close}>
      <div className="confirm-body">{children}</div>
      {write.error ? <Banner kind="error">{write.error}</Banner> : null}
      <div className="form-actions confirm-actions">
        <Button variant="secondary" onClick={close} disabled={write.busy}>
          Cancel
        </Button>
        <Button variant={danger ? 'danger' : 'primary'} busy={write.busy} onClick={() => void confirm()}>
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}

/**
 * A form whose submit runs `write`: its banner error on top, then the fields, then the submit button
 * (busy while saving), Cancel when `onCancel` is given, and any further `actions`.
 */
export function WriteForm({
  write,
  onSubmit,
  submitLabel,
  onCancel,
  actions,
  children,
}: {
  write: Write;
  onSubmit: () => void;
  submitLabel: string;
  onCancel?: () => void;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
      noValidate
    >
      {write.error ? <Banner kind="error">{write.error}</Banner> : null}
      {children}
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={write.busy}>
          {submitLabel}
        </Button>
        {onCancel ? (
          <Button variant="secondary" onClick={onCancel} disabled={write.busy}>
            Cancel
          </Button>
        ) : null}
        {actions}
      </div>
    </form>
  );
}

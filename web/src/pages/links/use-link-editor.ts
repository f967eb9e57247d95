import { type FormEvent, type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { patch, post } from '../../api/client';
import type { Link } from '../../api/types';
import { hashQuery, navigate } from '../../router';
import { useApi } from '../../use-api';
import { saveFailureOf } from './editor-errors';
import { changedBody, emptyForm, formFromLink, type LinkForm, localErrors, type UpdateForm } from './form';

/** The editor's state: the link as loaded, the form, and what the last save said. */
export interface LinkEditor {
  creating: boolean;
  loadError: string | undefined;
  /** The saved link; null while creating or loading. */
  link: Link | null;
  /** The form, and the values it started from (the PATCH sends only the difference); null while loading. */
  form: LinkForm | null;
  initial: LinkForm | null;
  update: UpdateForm;
  errors: Record<string, string>;
  failure: string | undefined;
  conflict: string | undefined;
  success: string | undefined;
  busy: boolean;
  /** The page's top, scrolled to after a save so its banner is seen. */
  topRef: RefObject<HTMLDivElement | null>;
  save: (event: FormEvent) => Promise<void>;
}

export function useLinkEditor(id: string | undefined, path: string): LinkEditor {
  const creating = id === undefined;
  const loaded = useApi<Link>(creating ? null : `/links/${id}`);
  const [link, setLink] = useState<Link | null>(null);
  const [initial, setInitial] = useState<LinkForm | null>(creating ? emptyForm() : null);
  const [form, setForm] = useState<LinkForm | null>(creating ? emptyForm() : null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string>();
  const [conflict, setConflict] = useState<string>();
  const [success, setSuccess] = useState<string | undefined>(
    hashQuery(path).get('created') ? 'Link created. It is live: share it anywhere.' : undefined,
  );
  const [busy, setBusy] = useState(false);
  const topRef = useRef<HTMLDivElement>(null);

  // The form restarts from what the server holds: after the load, and after each save.
  const showSaved = useCallback((saved: Link) => {
    setLink(saved);
    setInitial(formFromLink(saved));
    setForm(formFromLink(saved));
  }, []);
  useEffect(() => {
    if (loaded.data) showSaved(loaded.data);
  }, [loaded.data, showSaved]);

  // After a failed save, take the person to the first field that needs them (or the banner).
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt === 0) return;
    const invalid = document.querySelector<HTMLElement>('.lk-link-editor [aria-invalid="true"]');
    if (invalid) invalid.focus();
    else topRef.current?.scrollIntoView({ block: 'start' });
  }, [attempt]);

  async function submit(body: ReturnType<typeof changedBody>) {
    setBusy(true);
    try {
      if (creating) {
        const created = await post<Link>('/links', body);
        navigate(`/links/${created.id}?created=1`);
        return;
      }
      showSaved(await patch<Link>(`/links/${id}`, body));
      setSuccess('Changes saved. The short link serves them right away.');
      topRef.current?.scrollIntoView({ block: 'start' });
    } catch (error) {
      const refused = saveFailureOf(error);
      setErrors(refused.errors);
      setConflict(refused.conflict);
      setFailure(refused.failure);
      setAttempt((n) => n + 1);
    } finally {
      setBusy(false);
    }
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!form || !initial) return;
    setFailure(undefined);
    setConflict(undefined);
    setSuccess(undefined);
    const local = localErrors(form);
    setErrors(local);
    if (Object.keys(local).length > 0) {
      setAttempt((n) => n + 1);
      return;
    }
    const body = changedBody(initial, form, creating);
    if (!creating && Object.keys(body).length === 0) {
      setSuccess('Nothing to save: no field changed.');
      return;
    }
    await submit(body);
  }

  const update: UpdateForm = (change) =>
    setForm((current) => (current ? { ...current, ...change } : current));
  return {
    creating,
    loadError: loaded.error,
    link,
    form,
    initial,
    update,
    errors,
    failure,
    conflict,
    success,
    busy,
    topRef,
    save,
  };
}

import { LINK_CAPS } from '../../../../src/tenancy/plans.js';
import { Banner } from '../../components/ui';
import { TIER_NAMES } from '../../plans';
import { useAuthed } from '../../session';
import type { FieldErrors } from './editor-errors';

/** The banners above the link editor: the last save's outcome, and why a read-only link cannot change. */
export function EditorNotices({
  success,
  failure,
  errors,
  readOnly,
}: {
  success: string | undefined;
  failure: string | undefined;
  errors: FieldErrors;
  readOnly: boolean;
}) {
  const { tier } = useAuthed().org;
  return (
    <>
      {success ? <Banner kind="success">{success}</Banner> : null}
      {failure ? <Banner>{failure}</Banner> : null}
      {errors.entries.length > 0 ? (
        <Banner>
          Some fields need a fix before this link can be saved.
          {errors.stray.length > 0 ? (
            <ul className="lk-stray-errors">
              {errors.stray.map(([key, message]) => (
                <li key={key}>
                  <code>{key}</code>: {message}
                </li>
              ))}
            </ul>
          ) : null}
        </Banner>
      ) : null}
      {readOnly ? (
        <Banner kind="warning">
          <strong>This link is read-only.</strong> Your workspace has more live links than the{' '}
          {TIER_NAMES[tier]} plan keeps editable ({LINK_CAPS[tier].toLocaleString()}), so the newest ones are
          locked. It <strong>still redirects</strong> exactly as before. Archive links you no longer need, or{' '}
          <a href="#/settings">upgrade</a>, to edit it again.
        </Banner>
      ) : null}
    </>
  );
}

import { useState } from 'react';
import { LockedFeaturesProvider, UpgradeSummary, useLockedFeatures } from '../../components/gate';
import { Banner, Button, Loading, PageHeader } from '../../components/ui';
import { navigate } from '../../router';
import { AccessCard } from './access-card';
import { ArchiveDialog, shortDisplay } from './common';
import { DestinationCard } from './destination-card';
import { LinkToolsAside, NewLinkAside } from './editor-aside';
import { fieldErrors } from './editor-errors';
import { EditorNotices } from './editor-notices';
import { ExpiryCard } from './expiry-card';
import { HealthNotice, HealthPanel } from './health';
import { OrganizeCard } from './organize-card';
import { RoutingCard } from './routing-card';
import { TrackingCard } from './tracking-card';
import { useLinkEditor } from './use-link-editor';
import './links.css';

/**
 * `#/links/new` and `#/links/:id`: one form for every writable field of a link, in cards, with the
 * short link's tools beside it once it exists. The state and the save live in `useLinkEditor`.
 */
export function LinkEditorPage({ params, path }: { params: Record<string, string>; path: string }) {
  const editor = useLinkEditor(params.id, path);
  const { creating, link, form } = editor;
  const [archiving, setArchiving] = useState(false);
  // Each locked section shows a one-line label; the plan is explained once, above the form.
  const { locked, register } = useLockedFeatures();

  if (!creating && editor.loadError) {
    return (
      <>
        <PageHeader title="Edit link" />
        <Banner>{editor.loadError}</Banner>
        <a href="#/links">Back to links</a>
      </>
    );
  }
  if (!form || !editor.initial) return <Loading label="Loading link" />;

  const readOnly = link?.readOnly === true;
  const errors = fieldErrors(editor.errors);
  const card = { form, update: editor.update, errors };
  const title = creating ? 'New link' : 'Edit link';

  return (
    <LockedFeaturesProvider register={register}>
      <div className="lk-link-editor" ref={editor.topRef}>
        <PageHeader
          title={title}
          subtitle={
            creating
              ? 'Paste a destination; everything else is optional.'
              : link
                ? shortDisplay(link.shortUrl)
                : undefined
          }
          actions={
            <a className="btn btn-ghost" href="#/links">
              Back to links
            </a>
          }
        />
        <EditorNotices
          success={editor.success}
          failure={editor.failure}
          errors={errors}
          readOnly={readOnly}
        />
        <UpgradeSummary locked={locked} />
        {link ? <HealthNotice link={link} /> : null}

        <div className="lk-editor-layout">
          <form className="lk-editor-main" onSubmit={editor.save} noValidate aria-label={title}>
            <fieldset disabled={readOnly}>
              <DestinationCard {...card} creating={creating} />
              <OrganizeCard {...card} />
              <TrackingCard {...card} />
              <RoutingCard {...card} conflict={editor.conflict} />
              <AccessCard {...card} hasPassword={link?.hasPassword === true} />
              <ExpiryCard {...card} expired={link?.expired === true} />
            </fieldset>

            {!readOnly ? (
              <div className="lk-save-bar">
                <Button type="submit" variant="primary" busy={editor.busy}>
                  {creating ? 'Create link' : 'Save changes'}
                </Button>
                <a className="btn btn-ghost" href="#/links">
                  Cancel
                </a>
              </div>
            ) : null}
          </form>

          {creating ? <NewLinkAside /> : null}
          {link ? <LinkToolsAside link={link} onArchive={() => setArchiving(true)} /> : null}
          {/* Under the form (after the side column, so the grid puts it in the main column). */}
          {link ? <HealthPanel key={link.updatedAt} link={link} /> : null}
        </div>

        <ArchiveDialog
          link={archiving ? link : null}
          onClose={() => setArchiving(false)}
          onArchived={(archived) =>
            navigate(`/links?archived=${encodeURIComponent(shortDisplay(archived.shortUrl))}`)
          }
        />
      </div>
    </LockedFeaturesProvider>
  );
}

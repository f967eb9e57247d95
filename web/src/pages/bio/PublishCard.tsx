import { put } from '../../api/client';
import type { BioPage } from '../../api/types';
import { Button, CopyButton } from '../../components/ui';
import { publicPageUrl, withoutScheme } from './model';
import { NoteBanner, useSave } from './parts';

/** Draft or published, the page's address to copy, and the switch between the two states. */
export function PublishCard({
  saved,
  dirty,
  onSaved,
}: {
  saved: BioPage;
  /** Unsaved edits anywhere on the page: visitors do not see them yet. */
  dirty: boolean;
  onSaved: (page: BioPage) => void;
}) {
  const request = useSave();
  const live = saved.published;
  const url = publicPageUrl(saved.handle);

  const setPublished = (published: boolean) =>
    request.run(async () => {
      onSaved(await put<BioPage>('/bio', { handle: saved.handle, published }));
      return published ? 'Your page is live.' : 'Your page is offline. Visitors now get a 404.';
    });

  return (
    <section className={`card publish-card${live ? ' is-live' : ''}`} aria-labelledby="publish-title">
      <div className="publish-main">
        <span className={`status-dot${live ? ' live' : ''}`} aria-hidden="true" />
        <div className="publish-text">
          <h2 id="publish-title" className="publish-title">
            {live ? 'Published' : 'Draft'}
            <span className="sr-only">: </span>
            <span className="publish-sub">
              {live ? 'Anyone with the link can see it' : 'Only you can see it'}
            </span>
          </h2>
          <div className="publish-url">
            {live ? (
              <a
                className="mono"
                href={`/@${saved.handle}`}
                target="_blank"
                rel="noopener"
                aria-label={`Open ${url} in a new tab`}
              >
                {withoutScheme(url)}
              </a>
            ) : (
              <span className="mono">{withoutScheme(url)}</span>
            )}
            <CopyButton text={url} label="Copy link" />
          </div>
        </div>
        <Button
          variant={live ? 'secondary' : 'primary'}
          busy={request.busy}
          aria-pressed={live}
          onClick={() => void setPublished(!live)}
        >
          {live ? 'Unpublish' : 'Publish'}
        </Button>
      </div>
      <NoteBanner note={request.note} />
      {live && dirty ? (
        <p className="hint publish-hint">
          You have unsaved changes: visitors see the last saved version until you save.
        </p>
      ) : null}
    </section>
  );
}

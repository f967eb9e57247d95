import type { BioPage, DashboardKit } from '../../api/types';
import { Card, EmptyState, Loading, PageHeader } from '../../components/ui';
import { useApi } from '../../use-api';
import { KitEditor } from './KitEditor';
import { LoadFailed } from './parts';
import './bio.css';

/**
 * #/media-kit: what brands may see of the numbers (hosted-service.md 2 "Media kit", 3 and 4.3). Settings
 * are default-deny and need Hero; the preview is the public payload the server built, never a guess.
 */
export function MediaKitPage(_props: { params: Record<string, string>; path: string }) {
  const kit = useApi<DashboardKit>('/media-kit');
  const bio = useApi<{ page: BioPage | null }>('/bio');

  if (!kit.data && kit.loading) return <Loading label="Loading your media kit" />;
  if (!kit.data) {
    return (
      <LoadFailed
        title="Media kit"
        message={kit.error ?? 'The media kit could not be loaded.'}
        onRetry={() => void kit.reload()}
      />
    );
  }
  if (kit.data.needsBioPage || !kit.data.preview) return <NeedsBioPage />;
  return (
    <KitEditor
      data={kit.data}
      preview={kit.data.preview}
      bioPublished={bio.data?.page?.published}
      onSaved={(next) => kit.setData(next)}
      onCleared={() => void kit.reload()}
    />
  );
}

/** The kit borrows the bio page's name, avatar and theme, so it waits for one. */
function NeedsBioPage() {
  return (
    <>
      <PageHeader title="Media kit" subtitle="Your real numbers, ready to share with brands." />
      <Card>
        <EmptyState title="Create your bio page first">
          <p>
            The media kit lives on your bio page at <span className="mono">/@handle/media-kit</span> and uses
            its name, avatar and theme. Claim a handle and it is ready to switch on.
          </p>
          <a className="btn btn-primary" href="#/bio">
            Set up your bio page
          </a>
        </EmptyState>
      </Card>
    </>
  );
}

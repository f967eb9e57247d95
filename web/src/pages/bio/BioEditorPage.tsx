import type { BioPage, Link } from '../../api/types';
import { Loading } from '../../components/ui';
import { useApi } from '../../use-api';
import { BioEditor } from './BioEditor';
import { ClaimHandle } from './ClaimHandle';
import { LoadFailed } from './parts';
import './bio.css';

/**
 * #/bio: claim a handle, then edit the public page /@handle: profile, theme, the ordered blocks, and
 * publishing, with a phone preview drawn from the unsaved state. Spec: hosted-service.md 2, 3 and 4.2.
 */
export function BioEditorPage(_props: { params: Record<string, string>; path: string }) {
  const bio = useApi<{ page: BioPage | null }>('/bio');
  const links = useApi<{ links: Link[] }>('/links?limit=200');

  if (!bio.data && bio.loading) return <Loading label="Loading your bio page" />;
  if (!bio.data) {
    return (
      <LoadFailed
        title="Bio page"
        message={bio.error ?? 'The bio page could not be loaded.'}
        onRetry={() => void bio.reload()}
      />
    );
  }
  const page = bio.data.page;
  if (!page) return <ClaimHandle onClaimed={(saved) => bio.setData({ page: saved })} />;
  return (
    <BioEditor
      key={page.id}
      initial={page}
      links={links.data?.links ?? []}
      linksLoading={links.loading && !links.data}
      linksError={links.data ? undefined : links.error}
      onDeleted={() => bio.setData({ page: null })}
    />
  );
}

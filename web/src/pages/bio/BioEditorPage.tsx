import { PageHeader } from '../../components/ui';

export function BioEditorPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Bio page" subtitle="Coming soon." />;
}

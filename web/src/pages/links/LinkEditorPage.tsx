import { PageHeader } from '../../components/ui';

export function LinkEditorPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Edit link" subtitle="Coming soon." />;
}

import { PageHeader } from '../../components/ui';

export function MediaKitPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Media kit" subtitle="Coming soon." />;
}

import { PageHeader } from '../../components/ui';

export function LinksPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Links" subtitle="Coming soon." />;
}

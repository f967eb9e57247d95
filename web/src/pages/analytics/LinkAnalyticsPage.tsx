import { PageHeader } from '../../components/ui';

export function LinkAnalyticsPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Link analytics" subtitle="Coming soon." />;
}

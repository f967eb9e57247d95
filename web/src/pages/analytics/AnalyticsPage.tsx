import { PageHeader } from '../../components/ui';

export function AnalyticsPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Analytics" subtitle="Coming soon." />;
}

import { PageHeader } from '../../components/ui';

export function BroadcastsPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Broadcasts" subtitle="Coming soon." />;
}

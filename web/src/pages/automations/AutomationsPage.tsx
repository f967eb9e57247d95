import { PageHeader } from '../../components/ui';

export function AutomationsPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="DM automations" subtitle="Coming soon." />;
}

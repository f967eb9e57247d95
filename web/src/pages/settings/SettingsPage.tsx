import { PageHeader } from '../../components/ui';

export function SettingsPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Plan & settings" subtitle="Coming soon." />;
}

import { PageHeader } from '../../components/ui';

export function WebhooksPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Webhooks" subtitle="Coming soon." />;
}

import { PageHeader } from '../../components/ui';

export function ApiKeysPage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="API keys" subtitle="Coming soon." />;
}

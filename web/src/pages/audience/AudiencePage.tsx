import { PageHeader } from '../../components/ui';

export function AudiencePage(_props: { params: Record<string, string>; path: string }) {
  return <PageHeader title="Audience" subtitle="Coming soon." />;
}

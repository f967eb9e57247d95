import { EmptyState } from '../components/ui';

export function NotFoundPage() {
  return (
    <EmptyState title="This page does not exist">
      <p>
        <a href="#/links">Back to your links</a>
      </p>
    </EmptyState>
  );
}

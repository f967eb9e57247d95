import type { ReactNode } from 'react';
import { Banner, Button, Card, CopyButton } from '../../components/ui';

/**
 * A secret the server shows exactly once (an API key, a webhook signing secret): a warning, the secret
 * with a copy button, any `children` (how to use it), and a button to put it away.
 */
export function OnceSecret({
  title,
  warning,
  secret,
  testId,
  copyLabel,
  onDone,
  children,
}: {
  title: string;
  warning: ReactNode;
  secret: string;
  testId: string;
  copyLabel: string;
  onDone: () => void;
  children?: ReactNode;
}) {
  return (
    <Card title={title} className="once">
      <Banner kind="warning">{warning}</Banner>
      <div className="secret-box" data-testid={testId}>
        <code>{secret}</code>
        <CopyButton text={secret} label={copyLabel} />
      </div>
      {children}
      <div className="form-actions">
        <Button variant="secondary" onClick={onDone}>
          I have saved it
        </Button>
      </div>
    </Card>
  );
}

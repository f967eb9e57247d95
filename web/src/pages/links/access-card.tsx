import { Button, Card, TextField, Toggle } from '../../components/ui';
import type { EditorCardProps, LinkForm, UpdateForm } from './form';
import { Power } from './inputs';

/** Who may pass: the link's password. `hasPassword` is what the server holds (it never shows the password). */
export function AccessCard({
  form,
  update,
  errors,
  hasPassword,
}: EditorCardProps & { hasPassword: boolean }) {
  const summary =
    form.passwordMode === 'remove'
      ? 'Removed on save'
      : hasPassword || form.passwordMode === 'set'
        ? 'On'
        : 'Off';
  return (
    <Card title="Access">
      <Power
        title="Password"
        feature="passwordLinks"
        summary={summary}
        active={hasPassword || form.passwordMode !== 'keep'}
        invalid={errors.under('password')}
      >
        <PasswordControl
          hasPassword={hasPassword}
          form={form}
          error={errors.of('password')}
          onChange={update}
        />
      </Power>
    </Card>
  );
}

function PasswordControl({
  hasPassword,
  form,
  error,
  onChange,
}: {
  hasPassword: boolean;
  form: LinkForm;
  error: string | undefined;
  onChange: UpdateForm;
}) {
  const field = (
    <TextField
      label={hasPassword ? 'New password' : 'Password'}
      type="password"
      autoComplete="new-password"
      value={form.password}
      error={error}
      maxLength={200}
      hint="Visitors type it once before they continue."
      onChange={(event) => onChange({ password: event.target.value })}
    />
  );
  if (!hasPassword) {
    return (
      <>
        <Toggle
          label="Ask visitors for a password"
          checked={form.passwordMode === 'set'}
          onChange={(on) => onChange({ passwordMode: on ? 'set' : 'keep', password: '' })}
        />
        {form.passwordMode === 'set' ? field : null}
      </>
    );
  }
  return (
    <>
      <p className="lk-password-state">
        {form.passwordMode === 'remove'
          ? 'The password is removed when you save: anyone with the link gets through.'
          : 'This link asks visitors for a password. It is stored hashed and never shown.'}
      </p>
      {form.passwordMode === 'set' ? field : null}
      <div className="lk-row-tools">
        {form.passwordMode === 'keep' ? (
          <>
            <Button className="btn-small" onClick={() => onChange({ passwordMode: 'set', password: '' })}>
              Change password
            </Button>
            <Button
              variant="danger"
              className="btn-small"
              onClick={() => onChange({ passwordMode: 'remove' })}
            >
              Remove password
            </Button>
          </>
        ) : (
          <Button
            variant="ghost"
            className="btn-small"
            onClick={() => onChange({ passwordMode: 'keep', password: '' })}
          >
            Keep the current password
          </Button>
        )}
      </div>
    </>
  );
}

import { put } from '../../api/client';
import type { BioPage, Theme } from '../../api/types';
import { issuesOf } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import { Button, Card } from '../../components/ui';
import { type CardSaveProps, NoteBanner, SaveBar, SectionTitle, useSave } from './parts';
import { ThemeEditor } from './ThemeEditor';

/** The page's colours (Hero and up); other plans see why the page keeps the linkhop theme. */
export function ThemeCard({
  canTheme,
  theme,
  onThemeChange,
  saved,
  onSaved,
  dirty,
}: CardSaveProps & {
  canTheme: boolean;
  theme: Theme | null;
  onThemeChange: (theme: Theme | null) => void;
}) {
  const request = useSave(issuesOf);

  const save = () => {
    void request.run(async () => {
      const page = await put<BioPage>('/bio', { handle: saved.handle, theme });
      onSaved(page);
      onThemeChange(page.theme);
      return 'Theme saved.';
    });
  };

  return (
    <Card title={<SectionTitle text="Theme" dirty={dirty} />}>
      {canTheme ? (
        <>
          <NoteBanner note={request.note} />
          <ThemeEditor theme={theme} onChange={onThemeChange} errors={request.errors} />
          <SaveBar label="Save theme" busy={request.busy} dirty={dirty} onSave={save}>
            {theme !== null ? (
              <Button variant="ghost" onClick={() => onThemeChange(null)}>
                Use the default theme
              </Button>
            ) : null}
          </SaveBar>
        </>
      ) : (
        <>
          <UpgradeNotice feature="bioCustomTheme" />
          <p className="muted theme-locked">
            Your page uses the linkhop theme: warm paper, dark ink and a violet accent.
          </p>
        </>
      )}
    </Card>
  );
}

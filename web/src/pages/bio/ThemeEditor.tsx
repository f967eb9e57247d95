import type { Theme } from '../../api/types';
import { TextField } from '../../components/ui';
import { DEFAULT_THEME, effectiveTheme, isColour, THEME_PRESETS, toPickerHex } from './model';
import { themeStyle } from './PhonePreview';

/** Preset swatches and three colour rows (a native picker plus a text field for any CSS colour). */
export function ThemeEditor({
  theme,
  onChange,
  errors,
}: {
  theme: Theme | null;
  onChange: (theme: Theme | null) => void;
  errors: Record<string, string>;
}) {
  const current = theme ?? DEFAULT_THEME;
  const same = (a: Theme, b: Theme) =>
    a.bg.toLowerCase() === b.bg.toLowerCase() &&
    a.ink.toLowerCase() === b.ink.toLowerCase() &&
    a.accent.toLowerCase() === b.accent.toLowerCase();
  const rows: { key: keyof Theme; label: string }[] = [
    { key: 'bg', label: 'Background' },
    { key: 'ink', label: 'Text' },
    { key: 'accent', label: 'Accent' },
  ];
  return (
    <div className="theme-editor">
      <fieldset>
        <legend className="label">Presets</legend>
        <div className="presets">
          {THEME_PRESETS.map((preset) => {
            const pressed = same(current, preset.theme);
            return (
              <button
                key={preset.name}
                type="button"
                className="preset"
                aria-pressed={pressed}
                onClick={() => onChange(preset.theme)}
              >
                <span className="preset-swatch pv" style={themeStyle(preset.theme)} aria-hidden="true">
                  <span className="preset-line" />
                  <span className="preset-btn" />
                </span>
                <span className="preset-name">{preset.name}</span>
              </button>
            );
          })}
        </div>
      </fieldset>
      <div className="colour-rows">
        {rows.map((row) => {
          const value = current[row.key];
          const valid = isColour(value);
          const pickerValue =
            toPickerHex(value) ?? toPickerHex(effectiveTheme(current)[row.key]) ?? '#000000';
          return (
            <div className="colour-row" key={row.key}>
              <input
                type="color"
                className="colour-picker"
                aria-label={`${row.label} colour picker`}
                value={pickerValue}
                onChange={(event) => onChange({ ...current, [row.key]: event.target.value })}
              />
              <TextField
                label={row.label}
                value={value}
                maxLength={64}
                spellCheck={false}
                autoComplete="off"
                error={
                  errors[`theme.${row.key}`] ??
                  (valid ? undefined : 'Use a colour such as #5b4bff, rgb(91, 75, 255) or a colour name')
                }
                onChange={(event) => onChange({ ...current, [row.key]: event.target.value })}
              />
            </div>
          );
        })}
      </div>
      <p className="hint theme-hint">
        Any CSS colour works: #hex, rgb(), hsl() or a name. The accent draws button borders, social chips and
        the avatar ring.
      </p>
    </div>
  );
}

/**
 * A start that cannot go on because of the environment, and how a given value is quoted in its message.
 * Apart from config.ts so that the engine's own reader (engine/config.ts), which loads no Zod, words its
 * problems the same way.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    // One problem is its own sentence; several are listed under one heading.
    super(
      problems.length === 1
        ? (problems[0] as string)
        : `Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** The value as given, for the message: a URL's part after its scheme may hold a password, never shown. */
export function shownValue(value: unknown): string {
  if (typeof value !== 'string') return '';
  const safe = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? `${value.slice(0, value.indexOf('//') + 2)}…` : value;
  return `, not "${safe.length > 60 ? `${safe.slice(0, 59)}…` : safe}"`;
}

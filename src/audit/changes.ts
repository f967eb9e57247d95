/**
 * The `changes` of an audit row: for each field that differs, `{from, to}`. A secret field (a password,
 * a signing secret) is named but its values never are: `{changed: true}`.
 */
export function changesBetween(
  beforeRecord: object | null,
  afterRecord: object | null,
  options: { secret?: readonly string[]; only?: readonly string[] } = {},
): Record<string, unknown> {
  const before = beforeRecord as Record<string, unknown> | null;
  const after = afterRecord as Record<string, unknown> | null;
  const secret = new Set(options.secret ?? []);
  const keys = options.only ?? [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const changes: Record<string, unknown> = {};
  for (const key of keys) {
    const from = before?.[key] ?? null;
    const to = after?.[key] ?? null;
    if (JSON.stringify(from) === JSON.stringify(to)) continue;
    changes[key] = secret.has(key) ? { changed: true } : { from, to };
  }
  return changes;
}

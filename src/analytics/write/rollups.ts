import { ALL_ORGS, CELL, CELL_OUTCOME, cellValueOf } from '../escape-cells.js';
import { type ClickRow, DAY_MS, type OutcomeRow, SEP, WEEK, weekOf } from '../model.js';
import { BatchNumbers } from './batch-numbers.js';
import type { ClickInput } from './click-input.js';
import type { Increments, RollupScope } from './increments.js';

/**
 * The write side of the rollups: which (link, day, dimension, value) rows a click or an outcome adds to.
 * The batch writer and the bench share it, so seeded data and live data are rolled up the same way.
 */

export const cut = (value: string | null | undefined, max: number): string | null =>
  value ? value.slice(0, max) : null;

const COUNTRY = /^[A-Za-z]{2}$/;

export function toRow(click: ClickInput): ClickRow {
  const at = Number.isFinite(click.at) ? Math.trunc(click.at) : Date.now();
  return {
    org_id: click.orgId.slice(0, 36),
    link_id: click.linkId.slice(0, 36),
    at,
    bot: click.bot ? 1 : 0,
    variant: Number.isInteger(click.variant) ? click.variant : null,
    routed: cut(click.routed, 8192),
    country: click.country && COUNTRY.test(click.country) ? click.country.toUpperCase() : null,
    city: cut(click.city, 64),
    device: click.device.slice(0, 16) || 'other',
    source_app: cut(click.sourceApp, 32),
    referrer_host: cut(click.referrerHost?.toLowerCase(), 253),
    platform_key: cut(click.platformKey, 32),
    tap_id: cut(click.tapId, 36),
    strategy: click.strategy ?? null,
    expired: click.expired ? 1 : 0,
    qr: click.source === 'qr' ? 1 : 0,
  };
}

const HOURS = Array.from({ length: 24 }, (_, hour) => String(hour));
const WEEKLY = new Map(
  [
    'total',
    'bot',
    'country',
    'device',
    'platform',
    'referrer',
    'hour',
    'link',
    'outcome',
    'platform_outcome',
    'source',
    CELL,
    CELL_OUTCOME,
  ].map((dimension) => [dimension, `${dimension}${WEEK}`]),
);

/**
 * Where a click or an outcome counts: its link's day (none for organization-only counts), the
 * organization's day and the organization's 7-day block, looked up once. `add` counts a dimension in each
 * (the week under its `/w` name), `addToOrganization` in the organization's two only.
 */
class CountScopes {
  readonly link: RollupScope | null;
  private readonly orgDay: RollupScope;
  private readonly orgWeek: RollupScope;

  constructor(inc: Increments, org: string, link: string | null, day: number) {
    this.link = link === null ? null : inc.scope(org, link, day);
    this.orgDay = inc.scope(org, '', day);
    this.orgWeek = inc.scope(org, '', weekOf(day));
  }

  add(dimension: string, value: string, count = 1): void {
    this.link?.add(dimension, value, count);
    this.addToOrganization(dimension, value, count);
  }

  addToOrganization(dimension: string, value: string, count = 1): void {
    this.orgDay.add(dimension, value, count);
    this.orgWeek.add(WEEKLY.get(dimension) ?? dimension, value, count);
  }
}

/**
 * The rollup rows one click adds to: its link's, the organization's day (link_id '') and the
 * organization's 7-day block, so a 90-day organization read sums ~25 rows per value instead of 90. Only
 * dimensions some read shows are rolled up (the in-app source lives in raw rows only); `link` exists at
 * organization level so the per-link list of a whole organization never touches per-link rows.
 */
export function addClick(inc: Increments, row: ClickRow, count = 1): void {
  const day = Math.floor(row.at / DAY_MS);
  const { org_id: org, link_id: link } = row;
  const scopes = new CountScopes(inc, org, link, day);
  if (row.bot) {
    scopes.add('bot', '', count);
    return;
  }
  scopes.add('total', '', count);
  scopes.add('country', row.country ?? '', count);
  scopes.add('device', row.device, count);
  scopes.add('platform', row.platform_key ?? '', count);
  scopes.add('referrer', row.referrer_host ?? '', count);
  scopes.add('hour', HOURS[Math.floor(row.at / 3_600_000) % 24] ?? '0', count);
  scopes.addToOrganization('link', link, count);
  // Only QR scans are counted apart: a link's other clicks are its total less them (reads derive `link`).
  if (row.qr === 1) scopes.add('source', 'qr', count);
  if (row.variant !== null) scopes.link?.add('variant', String(row.variant), count);
  if (row.strategy) {
    const cell = cellValueOf({
      inApp: row.source_app,
      os: row.device,
      platform: row.platform_key,
      strategy: row.strategy,
    });
    if (cell !== null) scopes.add(CELL, cell, count);
  }
}

/**
 * A batch's clicks, folded first by everything the rollups look at (link, hour, bot, country, device,
 * platform, referrer, variant, QR or not): a busy link's batch repeats a few such shapes hundreds of times, and each
 * shape then costs its twenty-odd increments once instead of once per click. A shape is keyed by its
 * values' numbers in the batch (batch-numbers.ts).
 */
export function addClicks(inc: Increments, rows: readonly ClickRow[]): void {
  const numbers = new BatchNumbers();
  const shapes = new Map<string, { row: ClickRow; count: number }>();
  for (const row of rows) {
    const hour = Math.floor(row.at / 3_600_000);
    // The in-app source and strategy count only for taps (a cell's): other clicks keep one shape.
    const strategy = row.strategy ?? null;
    const sourceApp = strategy === null ? null : row.source_app;
    const qr = row.qr === 1 ? 1 : 0;
    const key = numbers.fit(10)
      ? String.fromCharCode(
          numbers.of(row.link_id),
          numbers.of(row.org_id),
          numbers.of(hour),
          row.bot,
          numbers.of(row.country),
          numbers.of(row.device),
          numbers.of(row.platform_key),
          numbers.of(row.referrer_host),
          numbers.of(row.variant),
          numbers.of(strategy),
          numbers.of(sourceApp),
          qr,
        )
      : `${row.link_id}\n${row.org_id}\n${hour}\n${row.bot}\n${row.country}\n${row.device}\n${row.platform_key}\n${row.referrer_host}\n${row.variant}\n${strategy}\n${sourceApp}\n${qr}`;
    const shape = shapes.get(key);
    if (shape) shape.count += 1;
    else shapes.set(key, { row, count: 1 });
  }
  for (const { row, count } of shapes.values()) addClick(inc, row, count);
}

export function addOutcome(inc: Increments, o: OutcomeRow): void {
  const scopes = new CountScopes(inc, o.orgId, o.linkId, o.day);
  scopes.add('outcome', o.outcome);
  scopes.add('platform_outcome', `${o.platformKey ?? ''}${SEP}${o.outcome}`);
  if (o.variant !== null) scopes.link?.add('variant_outcome', `${o.variant}${SEP}${o.outcome}`);
  const cell = cellValueOf({
    inApp: o.sourceApp,
    os: o.device,
    platform: o.platformKey,
    strategy: o.strategy,
  });
  if (cell !== null) {
    scopes.add(CELL_OUTCOME, `${cell}${SEP}${o.outcome}`);
    // Every organization's outcomes together, for the bandit (escape-cells.ts).
    new CountScopes(inc, ALL_ORGS, null, o.day).add(CELL_OUTCOME, `${cell}${SEP}${o.outcome}`);
  }
}

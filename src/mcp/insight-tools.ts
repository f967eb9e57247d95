import { z } from 'zod';
import { analyticsQuery, clicksQuery } from '../analytics/routes.js';
import { qrQuery } from '../links/qr.js';
import { listQuery } from '../links/schema.js';
import { idArgument, type ToolSpec } from './tool-spec.js';

/** What links do once published: analytics, the escape heat map, destination health, QR codes. */

const linkId = idArgument('link');
const READ = { readOnlyHint: true, openWorldHint: false } as const;
const SAMPLED =
  'Counts are sampled estimates; below the plan that shows a series, it is absent and `upgrade` says why.';

export const insightTools: ToolSpec[] = [
  {
    name: 'get_link_stats',
    title: "Get a link's stats",
    description:
      "The last 90 days of the link `id`: total clicks, the app-open rate (how often an in-app browser's " +
      `visitor got into the destination's app) and the outcomes opened / browser / broken. ${SAMPLED}`,
    input: linkId,
    annotations: READ,
    method: 'GET',
    path: '/links/{id}/stats',
    send: 'none',
  },
  {
    name: 'list_link_clicks',
    title: "List a link's recent clicks",
    description:
      'The recent clicks of the link `id`, newest first (last 90 days): when, the outcome, the app it ' +
      'came from, country, city and device. Pages of `limit` (at most 200) from `offset`.',
    input: clicksQuery.extend(linkId.shape),
    annotations: READ,
    method: 'GET',
    path: '/links/{id}/clicks',
    send: 'query',
  },
  {
    name: 'get_workspace_analytics',
    title: 'Get workspace analytics',
    description:
      'Clicks across the whole organization for the last `days` whole UTC days (1 to 90, default 30), ' +
      'optionally narrowed to one `linkId`, `folderId` or `tag`: totals, clicks per link, and by country, ' +
      `device, platform, referrer, day and hour, with app-open outcomes. ${SAMPLED}`,
    input: analyticsQuery,
    annotations: READ,
    method: 'GET',
    path: '/analytics',
    send: 'query',
  },
  {
    name: 'get_escape_heatmap',
    title: 'Get the in-app browser escape heat map',
    description:
      'How well links get visitors out of in-app browsers (Instagram, TikTok, ...) into the right app: ' +
      'one cell per in-app browser × OS × destination platform × escape strategy, with taps, outcomes ' +
      `and the open rate, most taps first. Same period and filters as get_workspace_analytics. ${SAMPLED}`,
    input: analyticsQuery,
    annotations: READ,
    method: 'GET',
    path: '/analytics/escape',
    send: 'query',
  },
  {
    name: 'get_link_health',
    title: "Get a link's destination health",
    description:
      "Whether the link `id`'s destination answers: its state (ok, down, unknown), since when, the last " +
      'HTTP status, and the last 20 checks newest first. While it is down, visits go to the link’s ' +
      '`fallbackUrl` if it has one.',
    input: linkId,
    annotations: READ,
    method: 'GET',
    path: '/links/{id}/health',
    send: 'none',
  },
  {
    name: 'list_down_links',
    title: 'List links whose destination is down',
    description:
      'Live links whose destination failed its health checks, newest first, as `{links: [...]}`; each ' +
      'Link’s `health` says since when and the last status. Pages of `limit` (at most 200) from `offset`.',
    input: listQuery.pick({ limit: true, offset: true }),
    annotations: READ,
    method: 'GET',
    path: '/links',
    send: 'query',
    fixed: { health: 'down' },
  },
  {
    name: 'get_link_qr',
    title: "Get a link's QR code",
    description:
      "The QR code of the link `id`'s short URL: a PNG image by default, or with `format: svg` the SVG " +
      'markup as text. `size`, `margin`, `fg`, `bg` and `ecl` customize it on plans with QR customization.',
    input: qrQuery.extend({
      ...linkId.shape,
      format: z.enum(['png', 'svg']).default('png').describe('png (an image) or svg (its markup as text)'),
    }),
    annotations: READ,
    method: 'GET',
    path: '/links/{id}/qr',
    send: 'query',
    defaults: { format: 'png' },
  },
];

import { dayAfterStart, type FakeAnswer, FakeJsonApi, type FakeRequest, many } from './json-api.js';

/**
 * A fake of the YOURLS API (yourls.org/readme.html#API, includes/functions-api.php):
 * `/yourls-api.php?action=stats&filter=last&limit=N&start=M&format=json`, authenticated by `signature`.
 * As YOURLS does: links come as `{link_1: {...}}` (no `links` key past the end), numbers as strings,
 * timestamps as MySQL datetimes, totals in `stats`; a bad signature is a 403 `{message, errorCode}`.
 */

export interface YourlsLink {
  keyword: string;
  url: string;
  title: string;
  timestamp: string;
  ip: string;
  clicks: string;
}

export class FakeYourls extends FakeJsonApi {
  signature = '1002a612b4';
  /** YOURLS_SITE. */
  site = 'y.example.test';
  links: YourlsLink[] = [];

  link(i: number, overrides: Partial<YourlsLink> = {}): YourlsLink {
    return {
      keyword: `yo${i}`,
      url: `https://example.com/yourls/${i}`,
      title: `YOURLS title ${i}`,
      timestamp: dayAfterStart(i)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, ''),
      ip: '203.0.113.9',
      clicks: String(i * 2),
      ...overrides,
    };
  }

  seed(count: number): this {
    this.links.push(...many(count, (i) => this.link(i)));
    return this;
  }

  protected errorBody(status: number, message: string): unknown {
    return { message, errorCode: String(status), callback: '' };
  }

  protected refuse(request: FakeRequest): FakeAnswer | null {
    if (request.query.get('signature') === this.signature) return null;
    return { status: 403, body: this.errorBody(403, 'Please log in') };
  }

  protected route(request: FakeRequest): FakeAnswer {
    if (request.path !== '/yourls-api.php') return this.notFound('Page not found');
    if (request.query.get('action') !== 'stats') {
      return {
        status: 400,
        body: { errorCode: 400, message: 'Unknown or missing "action" parameter', simple: '' },
      };
    }
    const limit = Number.parseInt(request.query.get('limit') ?? '10', 10) || 10;
    const start = Number.parseInt(request.query.get('start') ?? '0', 10) || 0;
    const newest = [...this.links].sort((a, b) => b.timestamp.localeCompare(a.timestamp));
    const page = newest.slice(start, start + limit);
    const links = Object.fromEntries(
      page.map((link, index) => [
        `link_${index + 1}`,
        {
          shorturl: `https://${this.site}/${link.keyword}`,
          url: link.url,
          title: link.title,
          timestamp: link.timestamp,
          ip: link.ip,
          clicks: link.clicks,
        },
      ]),
    );
    const clicks = this.links.reduce((sum, link) => sum + Number(link.clicks), 0);
    return {
      status: 200,
      body: {
        ...(page.length > 0 ? { links } : {}),
        stats: { total_links: String(this.links.length), total_clicks: String(clicks) },
        statusCode: 200,
        message: 'success',
      },
    };
  }
}

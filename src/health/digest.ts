import { escapeAttr, escapeHtml } from '../core/pages/escape-html.js';
import type { Mailer, MailMessage } from '../net/mail.js';
import type { HealthRepo } from './repo.js';

/**
 * The daily mail of destination health (issue #33): to each organization's owners and admins, the links
 * whose destination went down since yesterday. One a day at most per organization, whatever the number of
 * instances (health_digests is claimed before sending), and none without SMTP.
 */

const DAY_MS = 86_400_000;
/** How often an instance looks for organizations to tell: the checker's passes are more frequent. */
const LOOK_EVERY_MS = 10 * 60_000;

export interface HealthDigestDeps {
  repo: HealthRepo;
  mailer: Mailer;
  /** The service's origin (BASE_URL): short links on the default host, the dashboard's address. */
  baseUrl: string;
  now: () => number;
}

export function createHealthDigest(deps: HealthDigestDeps) {
  let lookedAt = Number.NEGATIVE_INFINITY;

  function message(to: string, links: Awaited<ReturnType<HealthRepo['newlyDownLinks']>>): MailMessage {
    const lines = links.map((link) => {
      const short = link.host === '' ? `${deps.baseUrl}/${link.slug}` : `https://${link.host}/${link.slug}`;
      const where = link.fallbackUrl
        ? `visits go to its fallback, ${link.fallbackUrl}, until it is back`
        : 'visits still go there: set a fallback URL to re-point them while it is down';
      return `- ${short} -> ${link.destination}\n  down since ${link.since}; ${where}`;
    });
    const items = links.map((link) => {
      const short = link.host === '' ? `${deps.baseUrl}/${link.slug}` : `https://${link.host}/${link.slug}`;
      const fallback = link.fallbackUrl
        ? `visits go to its fallback, <a href="${escapeAttr(link.fallbackUrl)}">${escapeHtml(link.fallbackUrl)}</a>, until it is back`
        : 'visits still go there: set a fallback URL to re-point them while it is down';
      return `<li><a href="${escapeAttr(short)}">${escapeHtml(short)}</a> &rarr; ${escapeHtml(link.destination)}<br>down since ${escapeHtml(link.since)}; ${fallback}</li>`;
    });
    // The dashboard routes by the fragment: /links itself would be a short link's address.
    const all = `${deps.baseUrl}/#/links?health=down`;
    return {
      from: deps.mailer.from,
      to,
      subject:
        links.length === 1
          ? 'A link of yours points at a page that is down'
          : `${links.length} links of yours point at pages that are down`,
      text:
        `These links' destinations stopped answering (three failed checks over at least 30 minutes):\n\n` +
        `${lines.join('\n')}\n\n` +
        `linkhop checks them again every 15 minutes and tells your webhooks when one is back.\n` +
        `See them all: ${all}\n`,
      html:
        `<p>These links' destinations stopped answering (three failed checks over at least 30 minutes):</p>` +
        `<ul>${items.join('')}</ul>` +
        `<p>linkhop checks them again every 15 minutes and tells your webhooks when one is back. ` +
        `<a href="${escapeAttr(all)}">See them all</a>.</p>`,
    };
  }

  /** Mails every organization due a digest; returns how many organizations were told. */
  async function run(): Promise<number> {
    if (deps.mailer.delivery !== 'mail') return 0;
    const now = deps.now();
    lookedAt = now;
    const since = new Date(now - DAY_MS).toISOString();
    const day = new Date(now).toISOString().slice(0, 10);
    let told = 0;
    for (const orgId of await deps.repo.orgsWithNewlyDown(since)) {
      if (!(await deps.repo.claimDigest(orgId, day))) continue;
      const links = await deps.repo.newlyDownLinks(orgId, since);
      if (links.length === 0) continue;
      for (const to of await deps.repo.adminEmails(orgId))
        deps.mailer.send({ kind: 'health-digest', to, message: () => message(to, links) });
      told++;
    }
    return told;
  }

  return {
    run,
    /** Runs the digest when it was not looked at in the last ten minutes (called after each checker pass). */
    async maybeRun(): Promise<void> {
      if (deps.now() - lookedAt >= LOOK_EVERY_MS) await run();
    },
  };
}

export type HealthDigest = ReturnType<typeof createHealthDigest>;

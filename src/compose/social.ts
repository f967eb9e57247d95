import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { createAnalyticsService } from '../analytics/service.js';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import type { LinkService } from '../links/service.js';
import { createSocialAccountService } from '../social/accounts.js';
import { createAutomationService } from '../social/automations.js';
import type { SocialDeps } from '../social/deps.js';
import { createSocialIntake } from '../social/intake.js';
import { createRefreshSweep } from '../social/refresh.js';
import type { Store } from '../store/database.js';

export interface SocialComposeDeps {
  config: Config;
  store: Store;
  logger: Logger;
  audit: AuditLog;
  links: LinkService;
  analytics: Pick<ReturnType<typeof createAnalyticsService>, 'configured' | 'linkOutcomes'>;
  sessionSecret: string;
  /** The service's clock. */
  now: () => Date;
}

/** Instagram comment-to-DM, wired once: connected accounts, automations, the webhook intake and the refresh sweep. */
export function composeSocial(deps: SocialComposeDeps) {
  const { config, analytics } = deps;
  const socialDeps: SocialDeps = {
    store: deps.store,
    social: config.social,
    flagsOff: config.flagsOff,
    baseUrl: config.baseUrl,
    stateSecret: deps.sessionSecret,
    links: deps.links,
    now: deps.now,
    uuid: randomUUID,
    logger: deps.logger,
    audit: deps.audit,
    // Automation stats show the DM'd link's taps from the same 90-day window as link stats.
    linkStats: async (ctx, linkId) => {
      if (!analytics.configured) return null;
      const stats = (await analytics.linkOutcomes(ctx.orgId, [linkId], 90)).get(linkId);
      if (!stats) return null;
      const measured = stats.outcomes.opened + stats.outcomes.browser + stats.outcomes.broken;
      return {
        clicks: stats.clicks,
        opened: stats.outcomes.opened,
        appOpenRate: measured === 0 ? null : stats.outcomes.opened / measured,
      };
    },
  };
  return {
    /** What a second instance's intake or refresh sweep is made from (tests, as after a restart). */
    deps: socialDeps,
    accounts: createSocialAccountService(socialDeps),
    automations: createAutomationService(socialDeps),
    intake: createSocialIntake(socialDeps),
    sweep: createRefreshSweep(socialDeps),
    appSecret: config.social.appSecret,
    verifyToken: config.social.verifyToken,
    cronSecret: config.cronSecret,
  };
}

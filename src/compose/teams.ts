import { randomUUID } from 'node:crypto';
import { createEraseService } from '../accounts/erase.js';
import { createEraseRepo } from '../accounts/erase-repo.js';
import { createInviteService } from '../accounts/invites.js';
import { createMemberService } from '../accounts/members.js';
import { createPasswordService } from '../accounts/passwords.js';
import { createAccountRepo } from '../accounts/repo.js';
import { createAccountService } from '../accounts/service.js';
import { createSignupService, type SignupLogger } from '../accounts/signup.js';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { createMailer, type MailTransport } from '../net/mail.js';
import type { Store } from '../store/database.js';

export interface TeamsDeps {
  config: Config;
  store: Store;
  audit: AuditLog;
  /** SMTP_URL's transport (null without it) and the sender of every mail. */
  mailTransport: MailTransport | null;
  mailFrom: string;
  /** Mails per address, shared by sign-up, invites and resets. */
  limits: { signupMails: RateLimiter; invites: RateLimiter };
  logger: SignupLogger;
  /** Drops an erased organization's compiled links from every instance's cache. */
  cache: { invalidateOrganization(orgId: string): void };
  /** The service's clock. */
  now: () => Date;
  /** Single sign-on's rule for password log-ins (src/compose/sso.ts). */
  passwordRefused?: (userId: string) => Promise<boolean>;
  /**
   * ANALYTICS_URL: deletes an erased organization's rows in ClickHouse, after the erasure committed in the
   * main database (ClickHouse has no part in its transaction). A failure is logged; the hourly sweep of
   * erased organizations (click-retention.ts) deletes them when ClickHouse answers again.
   */
  eraseAnalytics?: (orgId: string) => Promise<unknown>;
}

/**
 * The people side of the hosted service, wired once: accounts and sign-up, members and invites (issue
 * #20), passwords and account deletion. Every mail they send shares one sender, transport and limit.
 */
export function composeTeams(deps: TeamsDeps) {
  const { store, audit, config, now } = deps;
  const repo = createAccountRepo(store);
  const accounts = createAccountService({
    repo,
    now,
    uuid: randomUUID,
    audit,
    signupTier: config.signupTier,
    ...(deps.passwordRefused ? { passwordRefused: deps.passwordRefused } : {}),
  });
  const mailer = createMailer({
    transport: deps.mailTransport,
    from: deps.mailFrom,
    mailsPerAddress: deps.limits.signupMails,
    logger: deps.logger,
  });
  const mail = { baseUrl: config.baseUrl, mailer, logger: deps.logger, now };
  return {
    accounts,
    repo,
    signup: createSignupService({ repo, accounts, ...mail }),
    teams: {
      audit,
      members: createMemberService({ repo, accounts, audit, now }),
      invites: createInviteService({
        repo,
        accounts,
        audit,
        uuid: randomUUID,
        invitesPerOrg: deps.limits.invites,
        ...mail,
      }),
      passwords: createPasswordService({ repo, ...mail }),
      erase: createEraseService({
        repo: createEraseRepo(store),
        accounts: repo,
        audit,
        now,
        invalidateOrganization: async (orgId) => {
          deps.cache.invalidateOrganization(orgId);
          await deps
            .eraseAnalytics?.(orgId)
            .catch((error: unknown) =>
              deps.logger.warn(
                { err: error, orgId },
                'ClickHouse analytics not erased yet: the sweep retries',
              ),
            );
        },
      }),
    },
  };
}

import { appError } from '../errors.js';
import type { Mailer, MailLogger, MailMessage } from '../net/mail.js';
import type { AccountRepo } from './repo.js';
import { hashPassword, randomToken, sha256Hex } from './secrets.js';
import type { AccountService } from './service.js';
import { composeExistingAccountMail, composeSignupMail } from './signup-mail.js';

/**
 * Sign-up that does not tell anyone which emails have accounts (issue #17). Every request gets the same
 * answer and costs the same scrypt; what differs happens in the mailbox, which only its owner reads:
 * a new email gets a link that makes the account and logs in, an email with an account gets a note
 * saying so (log in or reset instead). Mail goes out after the answer, so its latency reveals nothing.
 * Without SMTP the link is written to the log for the operator (`npm start` on a laptop); operators can
 * also make accounts with `linkhop org create --email --password`.
 */

/** How long a confirmation link works. */
export const SIGNUP_LINK_HOURS = 24;

export type SignupLogger = MailLogger;

/** As invites say it (`delivery` of POST /v1/invites): mailed, or on its own line of the server log. */
export type SignupDelivery = 'mail' | 'server_log';

export interface SignupDeps {
  repo: AccountRepo;
  accounts: AccountService;
  /** BASE_URL: the dashboard's origin, where the link lands. */
  baseUrl: string;
  /** Without SMTP the link is written to the log instead. */
  mailer: Mailer;
  logger: SignupLogger;
  now: () => Date;
}

export function createSignupService(deps: SignupDeps) {
  const { repo } = deps;

  function send(email: string, message: () => MailMessage, link?: string) {
    deps.mailer.send({
      kind: 'signup',
      to: email,
      message,
      // One plain line the operator can spot and copy: the link as a field and in the message.
      withoutSmtp: () =>
        link
          ? deps.logger.warn(
              { email, link },
              `Sign-up confirmation link for ${email} (no SMTP configured, so it is printed here): ${link}`,
            )
          : deps.logger.info({ email }, 'sign-up asked for an email that has an account (no SMTP, no mail)'),
    });
  }

  return {
    /** Where confirmation links go: by mail with SMTP_URL, else the server's log. */
    delivery: deps.mailer.delivery as SignupDelivery,

    /** The same work and the same answer whether or not the email has an account. */
    async request(input: { email: string; password: string; orgName: string }): Promise<void> {
      const email = input.email.trim().toLowerCase();
      const passwordHash = await hashPassword(input.password);
      if (await repo.findUserByEmail(email)) {
        const login = `${deps.baseUrl}/#/login`;
        send(email, () => composeExistingAccountMail({ from: deps.mailer.from, to: email, loginUrl: login }));
        return;
      }
      const token = randomToken();
      const now = deps.now();
      await repo.insertSignupRequest({
        tokenHash: sha256Hex(token),
        email,
        passwordHash,
        orgName: input.orgName,
        expiresAt: new Date(now.getTime() + SIGNUP_LINK_HOURS * 3_600_000).toISOString(),
        createdAt: now.toISOString(),
      });
      // The token rides in the fragment: it never reaches a server log or a Referer header.
      const link = `${deps.baseUrl}/#/signup/confirm?token=${token}`;
      send(email, () => composeSignupMail({ from: deps.mailer.from, to: email, confirmUrl: link }), link);
    },

    /** Opens the link: makes the account and a session, once. An unknown or expired link is a 404. */
    async confirm(token: string) {
      const request = await repo.claimSignupRequest(sha256Hex(token), deps.now().toISOString());
      if (!request)
        throw appError('not_found', 'This sign-up link is unknown, used or expired: sign up again.');
      return deps.accounts.createAccount(request, { firstIsOperator: true });
    },
  };
}

export type SignupService = ReturnType<typeof createSignupService>;

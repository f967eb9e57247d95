import { appError } from '../errors.js';
import type { Mailer } from '../net/mail.js';
import type { SessionContext } from '../tenancy/context.js';
import { WrongPasswordError } from './password-attempts.js';
import type { AccountRepo } from './repo.js';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from './secrets.js';
import { composeMail } from './signup-mail.js';

/** How long a reset link works. */
export const RESET_LINK_MINUTES = 60;

export interface PasswordDeps {
  repo: AccountRepo;
  baseUrl: string;
  /** Without SMTP there is no reset by email (503 not_provisioned). */
  mailer: Mailer;
  now: () => Date;
}

/** A wrong `currentPassword`: a 400 naming the field, counted by the log-in's limits like a wrong log-in. */
export function wrongCurrentPassword(): WrongPasswordError {
  const message = 'This is not your current password';
  return new WrongPasswordError('invalid_body', 400, `currentPassword: ${message}`, {
    issues: [{ code: 'custom', path: ['currentPassword'], message }],
  });
}

/**
 * Password change (Settings) and reset by email (issue #20). A reset link works once, for an hour; the
 * request is answered the same whether or not the email has an account, and the mail goes out after.
 * Either way of setting a password ends the person's other sessions.
 */
export function createPasswordService(deps: PasswordDeps) {
  const { repo } = deps;

  return {
    resetAvailable: deps.mailer.delivery === 'mail',

    async change(session: SessionContext, input: { currentPassword: string; newPassword: string }) {
      const user = await repo.findUserById(session.user.id);
      if (!user || !(await verifyPassword(input.currentPassword, user.passwordHash)))
        throw wrongCurrentPassword();
      await repo.setPasswordHash(user.id, await hashPassword(input.newPassword));
      await repo.deleteSessionsOf(user.id, session.tokenHash);
      await repo.deletePasswordResetsOf(user.id);
    },

    async requestReset(emailInput: string): Promise<void> {
      if (deps.mailer.delivery !== 'mail')
        throw appError(
          'not_provisioned',
          'Password reset by email needs SMTP_URL on this instance; ask its operator to reset it for you.',
        );
      const email = emailInput.trim().toLowerCase();
      const user = await repo.findUserByEmail(email);
      if (!user) return;
      const token = randomToken();
      const now = deps.now();
      await repo.insertPasswordReset({
        tokenHash: sha256Hex(token),
        userId: user.id,
        expiresAt: new Date(now.getTime() + RESET_LINK_MINUTES * 60_000).toISOString(),
        createdAt: now.toISOString(),
      });
      // The token rides in the fragment: it never reaches a server log or a Referer header.
      const url = `${deps.baseUrl}/#/reset-password?token=${token}`;
      deps.mailer.send({
        kind: 'reset',
        to: email,
        message: () =>
          composeMail({
            from: deps.mailer.from,
            to: email,
            subject: 'Reset your linkhop password',
            lines: [
              'Someone, hopefully you, asked to reset the password of your linkhop account.',
              `The link works once, within ${RESET_LINK_MINUTES} minutes. If it was not you, ignore this mail.`,
            ],
            action: { label: 'Choose a new password', url },
          }),
      });
    },

    async confirmReset(token: string, password: string): Promise<void> {
      const userId = await repo.claimPasswordReset(sha256Hex(token), deps.now().toISOString());
      if (!userId)
        throw appError('not_found', 'This reset link is unknown, used or expired: ask for a new one.');
      await repo.setPasswordHash(userId, await hashPassword(password));
      await repo.deleteSessionsOf(userId);
      await repo.deletePasswordResetsOf(userId);
    },
  };
}

export type PasswordService = ReturnType<typeof createPasswordService>;

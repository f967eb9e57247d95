import type { Transporter } from 'nodemailer';

/**
 * The one mailer. Sign-up, password resets and invites send through `createMailer` (one sender, one
 * transport, one limit per address); broadcasts take the same transport for their own worker.
 */

/** One email as nodemailer takes it. */
export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  headers?: Record<string, string>;
}

export interface MailTransport {
  sendMail(message: MailMessage): Promise<unknown>;
  close?(): void;
}

/**
 * nodemailer over SMTP_URL (`smtp://host:port`, or smtps:// and credentials in the URL), loaded with the
 * first mail: about 3 MB of RSS a server that sends none need not hold.
 */
export function createSmtpTransport(smtpUrl: string): MailTransport {
  let transport: Promise<Transporter> | undefined;
  const open = () => {
    transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
    return transport;
  };
  return {
    sendMail: async (message) => (await open()).sendMail(message),
    close: () => {
      void transport?.then((opened) => opened.close());
    },
  };
}

export interface MailLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface MailerDeps {
  /** SMTP_URL's transport; null: no mail leaves, and each kind's `withoutSmtp` says what happens instead. */
  transport: MailTransport | null;
  /** MAIL_FROM, or no-reply@ the service's own host. */
  from: string;
  /** Mails of one kind to one address an hour: nobody makes the service mail-bomb an inbox. */
  mailsPerAddress: { hit(key: string): Promise<{ allowed: boolean }> };
  logger: MailLogger;
}

/** The service's own mail: sign-up confirmations, password resets, invites. */
export interface Mailer {
  /** Where links go: by mail with SMTP_URL, else the server's log. */
  readonly delivery: 'mail' | 'server_log';
  readonly from: string;
  /**
   * Sends one mail off the request path, so an answer never waits for SMTP nor tells whether a mail left.
   * Over the hourly limit for this kind and address it is dropped with a warning; without SMTP,
   * `withoutSmtp` runs instead (a link written on its own log line for the operator). Failures are logged.
   */
  send(mail: { kind: string; to: string; message: () => MailMessage; withoutSmtp?: () => void }): void;
}

export function createMailer(deps: MailerDeps): Mailer {
  return {
    delivery: deps.transport === null ? 'server_log' : 'mail',
    from: deps.from,
    send({ kind, to, message, withoutSmtp }) {
      void (async () => {
        if (!(await deps.mailsPerAddress.hit(`${kind}-mail:${to}`)).allowed) {
          deps.logger.warn({ email: to }, `${kind} mail not sent: too many for this address this hour`);
          return;
        }
        if (deps.transport === null) withoutSmtp?.();
        else await deps.transport.sendMail(message());
      })().catch((error: unknown) => deps.logger.error({ err: error, email: to }, `${kind} mail failed`));
    },
  };
}

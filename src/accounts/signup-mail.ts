import { escapeAttr, escapeHtml } from '../core/pages/escape-html.js';
import type { MailMessage } from '../net/mail.js';

/** The account mails. Short, plain, with the link both as a button and as text to copy. */

/** How much of a name someone typed (an organization's, a key's) a mail repeats. */
export const MAIL_NAME_MAX = 60;

/**
 * Text someone else chose (an organization's name, a key's name), made inert for a mail sent from the
 * service's own address: one line, at most `max` characters, no invisible format characters (bidi
 * overrides), and the dots, colons, slashes and at-signs that let a mail client turn it into a link or an
 * address replaced by look-alikes that no client links. "verify at https://evil.test/login" reads the same
 * to a person and is a link to nobody.
 */
export function inertMailText(text: string, max = MAIL_NAME_MAX): string {
  const chars = [
    ...text
      .replace(/\p{Cf}/gu, '')
      .replace(/\s+/g, ' ')
      .trim(),
  ];
  const short = chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
  return short
    .replace(/\./g, '\u2024')
    .replace(/:/g, '\uA789')
    .replace(/\//g, '\u2215')
    .replace(/@/g, '\uFF20');
}

export function composeMail(input: {
  from: string;
  to: string;
  subject: string;
  lines: string[];
  action: { label: string; url: string };
}): MailMessage {
  const { url, label } = input.action;
  const paragraphs = input.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('');
  return {
    from: input.from,
    to: input.to,
    subject: input.subject,
    html:
      `${paragraphs}<p><a href="${escapeAttr(url)}">${escapeHtml(label)}</a></p>` +
      `<p style="font-size:12px;color:#555">${escapeHtml(url)}</p>`,
    text: `${input.lines.join('\n\n')}\n\n${label}: ${url}\n`,
    headers: {},
  };
}

export function composeSignupMail(input: { from: string; to: string; confirmUrl: string }): MailMessage {
  return composeMail({
    from: input.from,
    to: input.to,
    subject: 'Finish creating your linkhop workspace',
    lines: [
      'Someone, hopefully you, asked to create a linkhop workspace with this email address.',
      'Open the link below within 24 hours to finish. If it was not you, ignore this mail: nothing is created.',
    ],
    action: { label: 'Create my workspace', url: input.confirmUrl },
  });
}

export function composeExistingAccountMail(input: {
  from: string;
  to: string;
  loginUrl: string;
}): MailMessage {
  return composeMail({
    from: input.from,
    to: input.to,
    subject: 'You already have a linkhop account',
    lines: [
      'Someone, hopefully you, tried to sign up to linkhop with this email address, which already has an account.',
      'Log in instead. If it was not you, you can ignore this mail: nothing changed.',
    ],
    action: { label: 'Log in', url: input.loginUrl },
  });
}

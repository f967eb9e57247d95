import { escapeAttr, escapeHtml } from '../core/pages/escape-html.js';
import type { MailMessage } from '../net/mail.js';

/** A readable plain-text twin for drafts saved without one: tags dropped, entities of the common kind undone. */
export function textFromHtml(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|h[1-6]|li|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** One broadcast email, with the RFC 8058 one-click unsubscribe headers. */
export function composeMessage(input: {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string | null;
  unsubscribeUrl: string;
}): MailMessage {
  const url = input.unsubscribeUrl;
  const text = input.text ?? textFromHtml(input.html);
  return {
    from: input.from,
    to: input.to,
    subject: input.subject,
    // The visible link as well as the header: not every mail client offers the header's button.
    html: `${input.html}<p style="font-size:12px;color:#777"><a href="${escapeAttr(url)}">${escapeHtml('Unsubscribe')}</a></p>`,
    text: `${text}\n\n--\nUnsubscribe: ${url}\n`,
    headers: {
      'List-Unsubscribe': `<${url}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

import type { ReceivedMail, SmtpSink } from '../broadcasts/smtp.js';

/** A mail's body as a reader sees it: quoted-printable soft breaks and escapes undone. */
export function readableBody(mail: ReceivedMail): string {
  return mail.body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Waits (up to 5 s) for the `n`th mail to `to` on the sink; mails go out after the answer. */
export async function nthMailTo(smtp: SmtpSink, to: string, n = 1): Promise<ReceivedMail> {
  const started = Date.now();
  for (;;) {
    const mails = smtp.messages.filter((mail) => mail.to.includes(to));
    if (mails.length >= n) return mails[n - 1] as ReceivedMail;
    if (Date.now() - started > 5000) throw new Error(`no mail #${n} to ${to} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The sign-up confirmation token in a mail, or null when the mail has none. */
export function signupTokenIn(mail: ReceivedMail): string | null {
  return /#\/signup\/confirm\?token=([A-Za-z0-9_-]+)/.exec(readableBody(mail))?.[1] ?? null;
}

/** The bytes of an RFC 2047 `Q` word: `_` is a space, `=XX` a byte, anything else itself. */
function qBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '_') bytes.push(0x20);
    else if (char === '=') {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(char.charCodeAt(0));
  }
  return Buffer.from(bytes);
}

/** A header as a reader sees it: RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded. */
export function decodedHeader(value: string | undefined): string {
  return (value ?? '')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      (kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : qBytes(text)).toString('utf8'),
    );
}

import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback (smtp-server) that keeps every message it accepts. */

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Header names lowercased, folded lines unfolded. */
  headers: Map<string, string>;
  body: string;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  /** Recipient addresses answered 550 at RCPT TO. */
  reject: Set<string>;
  close(): Promise<void>;
}

function parse(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(split + 4) };
}

export async function startSmtp(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const reject = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (reject.has(address.address)) {
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          ...parse(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    reject,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

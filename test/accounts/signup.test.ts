import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { createAccountService } from '../../src/accounts/service.js';
import { createSignupService, type SignupLogger } from '../../src/accounts/signup.js';
import { createMemoryRateLimiter } from '../../src/http/rate-limit.js';
import { createMailer, createSmtpTransport, type MailTransport } from '../../src/net/mail.js';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { nthMailTo } from '../helpers/mailbox.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';

/** Sign-up never tells who has an account (issue #17): the rules around the mailed link. */

function capturingLogger() {
  const lines: { level: string; details: Record<string, unknown>; message: string }[] = [];
  const at =
    (level: string) =>
    (details: object, message: string): void => {
      lines.push({ level, details: details as Record<string, unknown>, message });
    };
  const logger: SignupLogger = { info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
};

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`sign-up rules on ${kind.name}`, () => {
    let testStore: TestStore;
    let clock = Date.parse('2026-11-25T10:00:00Z');
    beforeAll(async () => {
      testStore = await kind.create();
    });
    afterAll(async () => testStore?.dispose());

    const signupWith = (transport: MailTransport | null) => {
      const repo = createAccountRepo(testStore.store);
      const now = () => new Date(clock);
      const accounts = createAccountService({ repo, now, uuid: randomUUID });
      const { logger, lines } = capturingLogger();
      const mailsPerAddress = createMemoryRateLimiter({ limit: 3, windowSeconds: 3600, now: () => clock });
      const signup = createSignupService({
        repo,
        accounts,
        baseUrl: 'https://lnk.example',
        mailer: createMailer({ transport, from: 'linkhop <no-reply@lnk.example>', mailsPerAddress, logger }),
        logger,
        now,
      });
      return { signup, lines, accounts };
    };

    it('without SMTP the link goes to the log for the operator, and it works', async () => {
      const { signup, lines } = signupWith(null);
      await signup.request({ email: 'Solo@Example.com', password: 'password1', orgName: 'Solo' });
      await until(() => lines.length > 0);
      const line = lines[0];
      expect(line?.level).toBe('warn');
      expect(line?.details.email).toBe('solo@example.com');
      const token = /token=([A-Za-z0-9_-]+)$/.exec(String(line?.details.link))?.[1] as string;
      const made = await signup.confirm(token);
      // The store's first account: its operator's, on Legend (first-account.test.ts has the rule).
      expect(made.org).toMatchObject({ name: 'Solo', tier: 'legend' });
      expect(line?.message).toContain(String(line?.details.link));
      // The same request for the now-taken email is logged without a link.
      await signup.request({ email: 'solo@example.com', password: 'password2', orgName: 'Solo 2' });
      await until(() => lines.length > 1);
      expect(lines[1]?.details.link).toBeUndefined();
    });

    it('a link expires after 24 hours', async () => {
      const { signup, lines } = signupWith(null);
      await signup.request({ email: 'late@example.com', password: 'password1', orgName: 'Late' });
      await until(() => lines.length > 0);
      const token = /token=([A-Za-z0-9_-]+)$/.exec(String(lines[0]?.details.link))?.[1] as string;
      clock += 24 * 3_600_000 + 1000;
      await expect(signup.confirm(token)).rejects.toMatchObject({ code: 'not_found', status: 404 });
    });

    it('one address gets at most 3 sign-up mails an hour, whoever asks; the answer does not change', async () => {
      const smtp: SmtpSink = await startSmtp();
      try {
        const { signup, lines } = signupWith(createSmtpTransport(smtp.url));
        for (let i = 0; i < 5; i++)
          await signup.request({ email: 'flood@example.com', password: 'password1', orgName: 'F' });
        await nthMailTo(smtp, 'flood@example.com', 3);
        await until(() => lines.filter((line) => line.message.includes('too many')).length === 2);
        expect(smtp.messages.filter((mail) => mail.to.includes('flood@example.com'))).toHaveLength(3);
      } finally {
        await smtp.close();
      }
    });
  });
}

describe('sign-up requests per client address', () => {
  let h: HostedHarness;
  beforeAll(async () => {
    const { sqliteKind } = await import('../helpers/stores.js');
    h = await startHosted(sqliteKind);
  });
  afterAll(async () => h?.close());

  it('ten an hour from one address, then 429 with Retry-After; another address is not affected', async () => {
    const from = (address: string, i: number) =>
      h.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        remoteAddress: address,
        headers: { 'content-type': 'application/json' },
        payload: { email: `n${i}@example.com`, password: 'password1', orgName: 'N' },
      });
    for (let i = 0; i < 10; i++) expect((await from('192.0.2.1', i)).statusCode).toBe(202);
    const eleventh = await from('192.0.2.1', 10);
    expect(eleventh.statusCode).toBe(429);
    expect(eleventh.json()).toMatchObject({ error: 'rate_limited' });
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(3000);
    expect((await from('192.0.2.2', 11)).statusCode).toBe(202);
  });
});

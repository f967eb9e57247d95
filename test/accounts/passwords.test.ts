import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { nthMailTo, readableBody } from '../helpers/mailbox.js';
import { storeKinds } from '../helpers/stores.js';
import { asCookie, makeTeam, PASSWORD } from './teams.js';

const resetTokenIn = (body: string) => /#\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(body)?.[1] as string;

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`passwords on ${kind.name}`, () => {
    let h: HostedHarness;
    let bare: HostedHarness;
    let smtp: SmtpSink;
    beforeAll(async () => {
      smtp = await startSmtp();
      h = await startHosted(kind, { SMTP_URL: smtp.url });
      bare = await startHosted(kind);
    });
    afterAll(async () => {
      await h?.close();
      await bare?.close();
      await smtp?.close();
    });
    const anonymous = (harness: HostedHarness) => asCookie(harness, '');
    const logIn = (harness: HostedHarness, email: string, password: string) =>
      anonymous(harness)('POST', '/api/auth/login', { email, password });

    it('changes the password in Settings, after the current one; other sessions end', async () => {
      const team = await makeTeam(h, 'change');
      const wrong = await team.as.member('POST', '/api/account/password', {
        currentPassword: 'not it',
        newPassword: 'brand new password',
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().issues[0].path).toEqual(['currentPassword']);
      const short = await team.as.member('POST', '/api/account/password', {
        currentPassword: PASSWORD,
        newPassword: 'short',
      });
      expect(short.json().message).toBe('newPassword: Passwords have at least 8 characters');

      const other = (await logIn(h, team.emails.member, PASSWORD)).headers['set-cookie'];
      const changed = await team.as.member('POST', '/api/account/password', {
        currentPassword: PASSWORD,
        newPassword: 'brand new password',
      });
      expect(changed.json()).toEqual({ ok: true });
      expect((await team.as.member('GET', '/api/session')).statusCode).toBe(200);
      const otherCookie = String(other).split(';')[0] as string;
      expect((await asCookie(h, otherCookie)('GET', '/api/session')).statusCode).toBe(401);
      expect((await logIn(h, team.emails.member, PASSWORD)).statusCode).toBe(401);
      expect((await logIn(h, team.emails.member, 'brand new password')).statusCode).toBe(200);
    });

    it('resets by email: one answer for any address, a one-use link for an hour, every session ended', async () => {
      const team = await makeTeam(h, 'reset');
      const unknown = await anonymous(h)('POST', '/api/auth/password-reset', {
        email: 'nobody@reset.example',
      });
      const known = await anonymous(h)('POST', '/api/auth/password-reset', { email: team.emails.viewer });
      expect(known.statusCode).toBe(202);
      expect(unknown.statusCode).toBe(202);
      expect(unknown.json().message.replace('nobody@reset.example', 'X')).toBe(
        known.json().message.replace(team.emails.viewer, 'X'),
      );
      const mail = await nthMailTo(smtp, team.emails.viewer);
      expect(mail.headers.get('subject')).toBe('Reset your linkhop password');
      const token = resetTokenIn(readableBody(mail));
      expect(readableBody(mail)).toContain(`${BASE_URL}/#/reset-password?token=${token}`);
      expect(smtp.messages.some((m) => m.to.includes('nobody@reset.example'))).toBe(false);

      const row = await h.testStore.store.db
        .selectFrom('password_resets')
        .selectAll()
        .executeTakeFirstOrThrow();
      const minutes = (Date.parse(row.expires_at) - Date.parse(row.created_at)) / 60_000;
      expect(minutes).toBe(60);
      expect(row.token_hash).not.toBe(token);

      const reset = await anonymous(h)('POST', '/api/auth/password-reset/confirm', {
        token,
        password: 'reset password',
      });
      expect(reset.json()).toEqual({ ok: true });
      expect((await team.as.viewer('GET', '/api/session')).statusCode).toBe(401);
      expect((await logIn(h, team.emails.viewer, 'reset password')).statusCode).toBe(200);
      const again = await anonymous(h)('POST', '/api/auth/password-reset/confirm', {
        token,
        password: 'another one',
      });
      expect(again.statusCode).toBe(404);
    });

    it('without SMTP_URL there is no reset by email, and it says so (503 not_provisioned)', async () => {
      const refused = await anonymous(bare)('POST', '/api/auth/password-reset', { email: 'a@b.example' });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({
        error: 'not_provisioned',
        message: expect.stringMatching(/SMTP_URL/),
      });
    });
  });
}

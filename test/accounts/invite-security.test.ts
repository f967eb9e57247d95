import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inertMailText } from '../../src/accounts/signup-mail.js';
import { SESSION_COOKIE } from '../../src/http/session-auth.js';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { decodedHeader, nthMailTo, readableBody } from '../helpers/mailbox.js';
import { storeKinds } from '../helpers/stores.js';
import { asCookie, invite, invitedToken, login, makeTeam, PASSWORD } from './teams.js';

/**
 * Issue #30's invite holes, each tried as the hostile owner of a free organization would: the invite
 * accept as a password oracle, the token handed back to the inviter, the inspect answer as an account
 * oracle, invites as a mail relay, and password checks outside the log-in's limits.
 */

const anonymous = (h: HostedHarness) => asCookie(h, '');

/** A dashboard call from a client address of its own, so per-address limits of other tests do not mix in. */
function fromAddress(h: HostedHarness, remoteAddress: string, cookie = '') {
  return (method: 'POST', url: string, payload: object) =>
    h.app.inject({
      method,
      url,
      remoteAddress,
      headers: { cookie, origin: BASE_URL, 'content-type': 'application/json' },
      payload,
    });
}

for (const kind of storeKinds) {
  // Every password here is a real scrypt, dozens per test: 4 to 15 s a test on a loaded 2-core machine.
  describe.skipIf(kind.skipReason !== null)(
    `invite and password holes stay shut on ${kind.name}`,
    { timeout: 60_000 },
    () => {
      let h: HostedHarness;
      beforeAll(async () => {
        h = await startHosted(kind);
      });
      afterAll(async () => {
        await h?.close();
      });

      it('accepting an invite never checks a password: right or wrong, an existing account must log in first', async () => {
        const victim = await makeTeam(h, `oracle-victim-${kind.name}`);
        const attacker = await makeTeam(h, `oracle-attacker-${kind.name}`);
        const token = await invite(h, attacker.as.owner, victim.emails.owner, 'member');
        const guesses = ['123456', 'password1', 'letmein!', PASSWORD];
        for (const password of guesses) {
          const answer = await anonymous(h)('POST', '/api/invites/accept', { token, password });
          expect(answer.statusCode).toBe(401);
          expect(answer.json().error).toBe('unauthenticated');
          expect(answer.headers['set-cookie']).toBeUndefined();
        }
        // Nothing was counted against the victim either: no guess reached their password.
        await login(h, victim.emails.owner);
        // The victim themself joins from their own session.
        const joined = await victim.as.owner('POST', '/api/invites/accept', { token });
        expect(joined.statusCode).toBe(200);
      });

      it('invite accepts are limited per client address (each new person costs a scrypt)', async () => {
        const statuses: number[] = [];
        const stranger = fromAddress(h, `10.8.0.${kind.name === 'sqlite' ? 1 : 2}`);
        for (let i = 0; i < 32; i++)
          statuses.push(
            (await stranger('POST', '/api/invites/accept', { token: `no-such-token-${i}`, password: 'x' }))
              .statusCode,
          );
        expect(statuses.slice(0, 30).every((status) => status === 404)).toBe(true);
        expect(statuses.slice(30)).toEqual([429, 429]);
      });

      it('the token reaches the invited address only: not the answer, the list or the audit log', async () => {
        const team = await makeTeam(h, `token-${kind.name}`);
        const created = await team.as.owner('POST', '/api/invites', {
          email: 'ceo@bigcorp.test',
          role: 'admin',
        });
        expect(created.statusCode).toBe(201);
        expect(created.json()).toEqual({
          id: expect.any(String),
          email: 'ceo@bigcorp.test',
          role: 'admin',
          expiresAt: expect.any(String),
          delivery: 'server_log',
        });
        const token = await invitedToken(h, 'ceo@bigcorp.test');
        const seenByInviter = [
          created.body,
          (await team.as.owner('GET', '/api/invites')).body,
          (await team.as.owner('GET', '/api/audit-log')).body,
        ].join('\n');
        expect(seenByInviter).not.toContain(token);
        // The operator's log line is the invite's own, readable on its own.
        const line = h.logged.findLast((entry) => entry.email === 'ceo@bigcorp.test');
        expect(line?.msg).toMatch(/SMTP is not configured: send this invite link/);
      });

      it('inspect answers the same for an email with an account and one without', async () => {
        const team = await makeTeam(h, `inspect-${kind.name}`);
        const other = await makeTeam(h, `inspect-other-${kind.name}`);
        const known = await invite(h, team.as.owner, other.emails.viewer, 'viewer');
        const unknown = await invite(h, team.as.owner, `nobody-${kind.name}@x.example`, 'viewer');
        const shapes = await Promise.all(
          [known, unknown].map(async (token) => {
            const answer = await anonymous(h)('POST', '/api/invites/inspect', { token });
            expect(answer.statusCode).toBe(200);
            return Object.keys(answer.json()).sort();
          }),
        );
        expect(shapes[0]).toEqual(['email', 'expiresAt', 'orgName', 'role']);
        expect(shapes[1]).toEqual(shapes[0]);
      });

      it('invites are limited per organization: 20 an hour', async () => {
        const team = await makeTeam(h, `relay-${kind.name}`);
        const statuses: number[] = [];
        for (let i = 0; i < 21; i++)
          statuses.push(
            (await team.as.owner('POST', '/api/invites', { email: `r${i}@relay.example`, role: 'viewer' }))
              .statusCode,
          );
        expect(statuses.slice(0, 20).every((status) => status === 201)).toBe(true);
        const refused = await team.as.owner('POST', '/api/invites', {
          email: 'r21@relay.example',
          role: 'viewer',
        });
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toMatchObject({ error: 'too_many_invites', retryAfter: expect.any(Number) });
      });

      it('at most 100 invites pending per organization', async () => {
        const team = await makeTeam(h, `pending-${kind.name}`);
        const now = new Date().toISOString();
        const expires = new Date(Date.now() + 86_400_000).toISOString();
        await h.testStore.store.db
          .insertInto('invites')
          .values(
            Array.from({ length: 100 }, (_, i) => ({
              id: crypto.randomUUID(),
              org_id: team.orgId,
              email: `p${i}@pending.example`,
              role: 'viewer',
              token_hash: `hash-${kind.name}-${i}`,
              invited_by: team.userIds.owner,
              expires_at: expires,
              created_at: now,
            })),
          )
          .execute();
        const refused = await team.as.owner('POST', '/api/invites', {
          email: 'one@more.example',
          role: 'viewer',
        });
        expect(refused.statusCode).toBe(429);
        expect(refused.json().message).toMatch(/100 pending invites/);
      });

      it('a wrong current password counts toward the account lock, as a wrong log-in does', async () => {
        for (const [n, door] of (['password', 'delete'] as const).entries()) {
          const team = await makeTeam(h, `lock-${door}-${kind.name}`);
          const cookie = `${SESSION_COOKIE}=${await h.accounts.openSession(team.userIds.member)}`;
          const me = fromAddress(h, `10.7.${n}.${kind.name === 'sqlite' ? 1 : 2}`, cookie);
          const wrong = () =>
            door === 'password'
              ? me('POST', '/api/account/password', { currentPassword: 'guess', newPassword: 'whatever123' })
              : me('POST', '/api/account/delete', { currentPassword: 'guess' });
          const statuses: number[] = [];
          for (let i = 0; i < 11; i++) statuses.push((await wrong()).statusCode);
          // Ten wrong guesses (the tenth locks), then refused before any password is compared.
          expect(statuses.slice(0, 9)).toEqual(Array(9).fill(400));
          expect(statuses.slice(9)).toEqual([429, 429]);
          // The lock is the account's, whatever the door: the log-in is refused too, right password and all.
          const locked = await h.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { email: team.emails.member, password: PASSWORD },
            remoteAddress: `10.9.${n}.${kind.name === 'sqlite' ? 1 : 2}`,
          });
          expect(locked.statusCode).toBe(429);
        }
      }, 90_000); // 22 scrypt checks and two teams of four: slow on a loaded 2-core machine
    },
  );
}

describe('invite mails name the inviter and relay no one else’s words', () => {
  let h: HostedHarness;
  let smtp: SmtpSink;
  const kind = storeKinds[0];
  beforeAll(async () => {
    smtp = await startSmtp();
    h = await startHosted(kind as (typeof storeKinds)[number], { SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  it('an organization named like a phishing mail reaches the inbox as inert, bounded text', async () => {
    const team = await makeTeam(h, 'phish');
    const name = 'Security alert: your bank account is locked, verify at https://evil.test/login now';
    await h.testStore.store.db
      .updateTable('organizations')
      .set({ name })
      .where('id', '=', team.orgId)
      .execute();
    await team.as.admin('POST', '/api/invites', { email: 'target@victim.example', role: 'viewer' });
    const mail = await nthMailTo(smtp, 'target@victim.example');
    const text = `${decodedHeader(mail.headers.get('subject'))}\n${readableBody(mail)}`;
    expect(text).not.toContain('https://evil.test');
    expect(text).not.toContain('evil.test');
    expect(text).toContain(inertMailText(name));
    expect([...inertMailText(name)].length).toBeLessThanOrEqual(60);
    expect(readableBody(mail)).toContain(`${team.emails.admin} invited you`);
    // The only link in the mail is the service's own accept page.
    const links = readableBody(mail).match(/https?:\/\/[^\s"<>]+/g) ?? [];
    expect(new Set(links.map((link) => new URL(link).origin))).toEqual(new Set(['https://lnk.example']));
  });

  it('inert text: one line, no invisible format characters, nothing a client links', () => {
    expect(inertMailText('a\u202Eb\n\nc  d')).toBe('ab c d');
    expect(inertMailText('mail me@evil.test or www.evil.test/x')).not.toMatch(/[.@/:]/);
    expect([...inertMailText('x'.repeat(500))]).toHaveLength(60);
  });
});

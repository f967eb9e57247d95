/**
 * Provider errors (social-provider.md 7.2) mapped to our firing-row machine token and the creator-facing
 * reason. Classified by code and subcode, never by message text (it varies by locale and version).
 */

export interface Classified {
  error: string;
  reason: string | null;
  /** The token no longer works: the account needs a reconnect. */
  reconnect: boolean;
  /** Worth trying again later (throttles, outages). */
  transient: boolean;
}

const RATE = 'Instagram is limiting how fast we can send, so this DM was not sent.';
const RECONNECT_GENERIC = 'We could not use your Instagram connection. Please reconnect.';
const UNAVAILABLE = 'This person can’t receive messages from you right now.';

function entry(
  error: string,
  reason: string,
  flags: Partial<Pick<Classified, 'reconnect' | 'transient'>> = {},
) {
  return { error, reason, reconnect: flags.reconnect ?? false, transient: flags.transient ?? false };
}

export function classifyProviderError(code: number | null, subcode: number | null): Classified {
  switch (code) {
    case 190:
      if (subcode === 463)
        return entry(
          'token_expired',
          'Your Instagram connection expired. Reconnect Instagram to resume DMs.',
          {
            reconnect: true,
          },
        );
      if (subcode === 460)
        return entry(
          'token_revoked',
          'Instagram signed us out (password or security change). Please reconnect.',
          {
            reconnect: true,
          },
        );
      if (subcode === 458)
        return entry('app_removed', 'You removed our app from Instagram. Reconnect to turn DMs back on.', {
          reconnect: true,
        });
      return entry('token_invalid', RECONNECT_GENERIC, { reconnect: true });
    case 102:
      return entry('token_invalid', RECONNECT_GENERIC, { reconnect: true });
    case 10:
      if (subcode === 2534022 || subcode === 2018278)
        return entry(
          'outside_24h_window',
          'Instagram only allows this message within 24 hours of the person’s last message.',
        );
      if (subcode === 2018108) return entry('recipient_unavailable', UNAVAILABLE);
      return entry(
        'permission_missing',
        'Instagram did not give us permission to send messages for this account. Reconnect and allow messaging.',
      );
    case 3:
      return entry('capability_missing', 'Your Instagram setup does not allow automated replies yet.');
    case 551:
      return entry('recipient_unavailable', UNAVAILABLE);
    case 100:
      if (subcode === 2534014)
        return entry('recipient_not_found', 'We couldn’t find this person on Instagram anymore.');
      if (subcode === 2534025)
        return entry(
          'private_reply_unavailable',
          'This comment can’t get a private reply (already answered or too old).',
        );
      if (subcode === 33) return entry('object_not_found', 'The comment or post no longer exists.');
      return entry('invalid_request', 'Instagram rejected the message format.');
    case 4:
    case 17:
    case 32:
    case 613:
    case 80002:
    case 341:
      return entry('rate_limited', RATE, { transient: true });
    case 368:
      return entry(
        'blocked_by_provider',
        'Instagram temporarily blocked automated messages from this account.',
        { transient: true },
      );
    case 1:
      return entry('provider_error', 'Instagram had a temporary problem.', { transient: true });
    case 2:
      return entry('provider_unavailable', 'Instagram is having trouble right now.', { transient: true });
  }
  if (code === 200 && subcode === 1545041) return entry('recipient_unavailable', UNAVAILABLE);
  if (code !== null && code >= 200 && code <= 299)
    return entry(
      'permission_missing',
      'Instagram did not give us permission to send messages for this account. Reconnect and allow messaging.',
    );
  // Unknown codes keep the provider's number as the token; the spec says such codes carry no reason.
  return {
    error: code === null ? 'network_error' : `provider_${code}`,
    reason: null,
    reconnect: false,
    transient: true,
  };
}

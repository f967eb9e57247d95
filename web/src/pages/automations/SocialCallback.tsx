import { useEffect } from 'react';
import { ApiError, post } from '../../api/client';
import type { SocialAccount } from '../../api/types';
import { Loading } from '../../components/ui';

/**
 * `/social/callback?code&state` (or `?error`): Instagram sends the creator back here after the consent
 * page. The code is single-use, so it is posted once (StrictMode runs effects twice in development), then
 * the dashboard's automations page shows the outcome from its hash query.
 */
let started = false;

export function connectErrorMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Could not reach linkhop to finish connecting. Try again.';
  switch (error.status) {
    case 400:
      return 'Instagram did not send back an authorization code. Start the connection again.';
    case 401:
      return 'Your linkhop session ended. Log in, then connect Instagram again.';
    case 403:
      if (error.code === 'invalid_state')
        return 'This connection was not started from your workspace, so it was refused. Start it again from DM automations.';
      if (error.code === 'feature_disabled') return 'DM automations are switched off on this service.';
      return 'Your plan does not include Instagram DM automations, so the account was not connected.';
    case 409:
      return 'This Instagram account is already connected to another linkhop workspace. Disconnect it there first.';
    case 502:
      return 'Instagram refused the connection. Wait a minute and try again.';
    case 503:
      return 'Instagram is not set up on this server yet: the operator must set SOCIAL_APP_ID, SOCIAL_APP_SECRET and TOKEN_VAULT_KEY.';
    default:
      return error.message || 'Connecting Instagram failed. Try again.';
  }
}

function providerErrorMessage(error: string, reason: string | null): string {
  if (error === 'access_denied' || reason === 'user_denied')
    return 'You cancelled on Instagram, so no account was connected.';
  return 'Instagram did not complete the connection. Try again.';
}

function back(query: Record<string, string>): void {
  window.location.replace(`/#/automations?${new URLSearchParams(query)}`);
}

export function SocialCallback() {
  useEffect(() => {
    if (started) return;
    started = true;
    const params = new URLSearchParams(window.location.search);
    const error = params.get('error');
    if (error) {
      back({ connect_error: providerErrorMessage(error, params.get('error_reason')) });
      return;
    }
    const code = params.get('code') ?? '';
    const state = params.get('state') ?? '';
    post<SocialAccount>('/social/connect', { code, state })
      .then((account) => back({ connected: account.username }))
      .catch((err: unknown) => back({ connect_error: connectErrorMessage(err) }));
  }, []);
  return (
    <main className="callback" id="main">
      <Loading label="Connecting your Instagram account" />
    </main>
  );
}

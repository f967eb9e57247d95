import { randomUUID } from 'node:crypto';
import { verifyPassword } from '../accounts/secrets.js';
import type { EscapeBandit } from '../analytics/read/escape-bandit.js';
import type { clickSink } from '../analytics/write/click-sink.js';
import type { TapTokens } from '../analytics/write/tap-tokens.js';
import type { Config } from '../config.js';
import { createVisitorClassifier } from '../core/visitor.js';
import type { LinkExpiry } from '../links/expiry.js';
import { createEscapeChooser } from '../redirect/escape-choice.js';
import type { LinkLoaderDeps } from '../redirect/link-loader.js';
import { createNonceSource } from '../redirect/nonce.js';
import { createPasswordCookies } from '../redirect/password-gate.js';
import { createVisitResponder } from '../redirect/respond.js';
import type { HostedRedirectDeps } from '../redirect/visit.js';
import type { Hosts } from './links.js';
import type { Shared } from './shared.js';

/**
 * The hot path's parts: the visitor classifier, the responder with its compiled pages, and what the
 * redirect routes hand their link loader (which compiles links with the escape matrix). A click and a tap
 * token reach analytics only through `analytics` here, and only when ANALYTICS is on.
 */
export function composeRedirect(parts: {
  config: Config;
  shared: Shared;
  hosts: Hosts;
  linkExpiry: LinkExpiry;
  clicks: Pick<ReturnType<typeof clickSink>, 'record'>;
  tapTokens: Pick<TapTokens, 'prefix' | 'issueWith'>;
  bandit: EscapeBandit;
}) {
  const { config, shared, hosts } = parts;
  const classify = createVisitorClassifier();
  const nonce = createNonceSource();
  const respondToVisit = createVisitResponder({
    classify,
    nonce,
    redirectStatus: 302,
    redirectHeaders: { 'cache-control': 'private, max-age=0' },
  });
  const deps: HostedRedirectDeps & Pick<LinkLoaderDeps, 'escapeMatrix'> = {
    links: hosts.linkRepo,
    table: shared.table,
    classify,
    respondToVisit,
    chooseFor: createEscapeChooser(parts.bandit),
    cache: hosts.cache,
    geoHeader: config.geoHeader,
    secureCookies: config.baseUrl.startsWith('https://'),
    passwordCookies: createPasswordCookies(shared.sessionSecret),
    verifyPassword,
    passwordAttempts: shared.limits.password,
    passwordFailures: shared.limits.passwordFailures,
    nonce,
    baseUrl: config.baseUrl,
    defaultHost: new URL(config.baseUrl).host,
    flagsOff: config.flagsOff,
    analytics: config.analytics
      ? {
          record: (click) => parts.clicks.record(click),
          tapPrefix: (constant) => parts.tapTokens.prefix(constant),
          issueTap: (prefix, visit) => parts.tapTokens.issueWith(prefix, visit),
          newTapId: randomUUID,
        }
      : null,
    now: shared.clock,
    random: Math.random,
    escapeMatrix: shared.escapeMatrix,
    expiry: parts.linkExpiry,
  };
  return { classify, respondToVisit, deps };
}

import { type ComponentType, useEffect, useState } from 'react';
import type { Feature } from './api/types';
import { Logo } from './components/logo';
import { Loading } from './components/ui';
import { OrgSwitcher } from './OrgSwitcher';
import { ConfirmSignupPage, LoginPage, SignupPage } from './pages/AuthPages';
import { AnalyticsPage } from './pages/analytics/AnalyticsPage';
import { LinkAnalyticsPage } from './pages/analytics/LinkAnalyticsPage';
import { AudiencePage } from './pages/audience/AudiencePage';
import { BroadcastsPage } from './pages/audience/BroadcastsPage';
import { AutomationsPage } from './pages/automations/AutomationsPage';
import { SocialCallback } from './pages/automations/SocialCallback';
import { BioEditorPage } from './pages/bio/BioEditorPage';
import { MediaKitPage } from './pages/bio/MediaKitPage';
import { DomainsPage } from './pages/domains/DomainsPage';
import { InvitePage } from './pages/InvitePage';
import { ImportProgressPage } from './pages/imports/ImportProgress';
import { ImportsPage } from './pages/imports/ImportsPage';
import { LandingPage } from './pages/LandingPage';
import { LinkEditorPage } from './pages/links/LinkEditorPage';
import { LinksPage } from './pages/links/LinksPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/PasswordPages';
import { ApiKeysPage } from './pages/settings/ApiKeysPage';
import { SettingsPage } from './pages/settings/SettingsPage';
import { WebhooksPage } from './pages/settings/WebhooksPage';
import { AuditLogPage } from './pages/team/AuditLogPage';
import { MembersPage } from './pages/team/MembersPage';
import { TIER_NAMES } from './plans';
import { matchPath, navigate, useHashPath } from './router';
import { useSession } from './session';

type Page = ComponentType<{ params: Record<string, string>; path: string }>;

/** Most specific first: `/links/new` before `/links/:id`. */
const ROUTES: [string, Page][] = [
  ['/links', LinksPage],
  ['/links/new', LinkEditorPage],
  ['/links/:id/analytics', LinkAnalyticsPage],
  ['/links/:id', LinkEditorPage],
  ['/analytics', AnalyticsPage],
  ['/domains', DomainsPage],
  ['/imports', ImportsPage],
  ['/imports/:id', ImportProgressPage],
  ['/bio', BioEditorPage],
  ['/media-kit', MediaKitPage],
  ['/audience', AudiencePage],
  ['/broadcasts', BroadcastsPage],
  ['/automations', AutomationsPage],
  ['/webhooks', WebhooksPage],
  ['/keys', ApiKeysPage],
  ['/members', MembersPage],
  ['/audit-log', AuditLogPage],
  ['/settings', SettingsPage],
];

const NAV: { path: string; label: string; feature?: Feature; group: string }[] = [
  { path: '/links', label: 'Links', group: 'Links' },
  { path: '/analytics', label: 'Analytics', group: 'Links' },
  { path: '/domains', label: 'Domains', group: 'Links' },
  { path: '/imports', label: 'Import', group: 'Links' },
  { path: '/bio', label: 'Bio page', group: 'Creator' },
  { path: '/media-kit', label: 'Media kit', group: 'Creator' },
  { path: '/audience', label: 'Audience', group: 'Creator' },
  { path: '/broadcasts', label: 'Broadcasts', group: 'Creator' },
  { path: '/automations', label: 'DM automations', group: 'Creator' },
  { path: '/webhooks', label: 'Webhooks', group: 'Developers' },
  { path: '/keys', label: 'API keys', group: 'Developers' },
  { path: '/members', label: 'Members', group: 'Team' },
  { path: '/audit-log', label: 'Audit log', group: 'Team' },
  { path: '/settings', label: 'Plan & settings', group: 'Account' },
];

function findRoute(path: string): { Page: Page; params: Record<string, string> } | null {
  for (const [pattern, Page] of ROUTES) {
    const params = matchPath(pattern, path);
    if (params) return { Page, params };
  }
  return null;
}

export function App() {
  const { session } = useSession();
  const path = useHashPath();

  if (window.location.pathname === '/social/callback') return <SocialCallback />;
  if (session === undefined) return <Loading label="Loading linkhop" />;
  if (path.startsWith('/signup/confirm')) return <ConfirmSignupPage />;
  // The invite page works logged in (an existing person joins) and logged out (a new one signs up).
  const invite = matchPath('/invite/:token', path);
  if (invite?.token) return <InvitePage token={invite.token} />;
  if (path.startsWith('/reset-password')) return <ResetPasswordPage />;

  if (!session) {
    if (path.startsWith('/login')) return <LoginPage />;
    if (path.startsWith('/signup')) return <SignupPage />;
    if (path.startsWith('/forgot-password')) return <ForgotPasswordPage />;
    return <LandingPage />;
  }
  return <Shell path={path} />;
}

function Shell({ path }: { path: string }) {
  const { session, logout } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const bare = path.split('?')[0] ?? '/';
  useEffect(() => {
    if (bare === '/' || bare === '/login' || bare === '/signup') navigate('/links');
    setMenuOpen(false);
    window.scrollTo(0, 0);
  }, [bare]);
  if (!session) return null;
  const route = findRoute(path);
  const groups = [...new Set(NAV.map((item) => item.group))];
  return (
    <div className="shell">
      {/* A button, not an in-page anchor: the hash is the route here. */}
      <button type="button" className="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header className="topbar">
        <a className="brand" href="#/links">
          <Logo /> linkhop
        </a>
        <button
          type="button"
          className="menu-btn"
          aria-expanded={menuOpen}
          aria-controls="sidenav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
      </header>
      <nav id="sidenav" className={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Dashboard">
        <a className="brand brand-side" href="#/links">
          <Logo /> linkhop
        </a>
        {groups.map((group) => (
          <div key={group} className="nav-group">
            <p className="nav-group-title">{group}</p>
            <ul>
              {NAV.filter((item) => item.group === group).map((item) => {
                const active = bare === item.path || bare.startsWith(`${item.path}/`);
                return (
                  <li key={item.path}>
                    <a href={`#${item.path}`} aria-current={active ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
        <div className="nav-foot">
          {session.orgs.length > 1 ? (
            <OrgSwitcher />
          ) : (
            <p className="nav-org">
              <strong>{session.org.name}</strong>
              <span className={`tier tier-${session.org.tier}`}>{TIER_NAMES[session.org.tier]}</span>
            </p>
          )}
          <p className="nav-user">{session.user.email}</p>
          <button type="button" className="btn btn-ghost btn-small" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      </nav>
      <main id="main" tabIndex={-1}>
        {/* Keyed by the workspace too: switching workspace remounts the page, so no state, list or form of
            the other workspace survives, and every fetch of the page is made again. */}
        {route ? (
          <route.Page key={`${session.org.id} ${bare}`} params={route.params} path={path} />
        ) : (
          <NotFoundPage />
        )}
      </main>
    </div>
  );
}

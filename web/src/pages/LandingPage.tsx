import { Logo } from '../components/logo';

export function LandingPage() {
  return (
    <div className="landing">
      <header className="landing-top">
        <span className="brand">
          <Logo /> linkhop
        </span>
        <nav aria-label="Account">
          <a className="btn btn-ghost" href="#/login">
            Log in
          </a>
          <a className="btn btn-primary" href="#/signup">
            Sign up free
          </a>
        </nav>
      </header>
      <main id="main" className="landing-main">
        <section className="hero">
          <p className="eyebrow">Smart links for creators</p>
          <h1>Your link in bio should open the app, not a logged-out webview.</h1>
          <p className="lede">
            A linkhop link recognises YouTube, Spotify, Amazon and 28 more platforms, escapes Instagram's and
            TikTok's in-app browsers, and opens the native app where your follower is already logged in. Then
            it tells you how often that worked.
          </p>
          <div className="hero-cta">
            <a className="btn btn-primary btn-large" href="#/signup">
              Create your free workspace
            </a>
            <a className="btn btn-ghost btn-large" href="/docs">
              Read the API docs
            </a>
          </div>
        </section>
        <section className="features" aria-label="What you get">
          <article>
            <h2>Real app-open rates</h2>
            <p>Every tap reports opened, stayed in browser or failed, so you see what actually converts.</p>
          </article>
          <article>
            <h2>Link powers</h2>
            <p>
              UTM tags, device and country routing, A/B splits, scheduled swaps, passwords, pixels and QR
              codes.
            </p>
          </article>
          <article>
            <h2>Creator pages</h2>
            <p>
              A link-in-bio page, a media kit brands can trust, an email list with consent, and broadcasts.
            </p>
          </article>
          <article>
            <h2>Built to last</h2>
            <p>
              Open source, self-hostable, with signed permanence receipts: a published link never stops
              working.
            </p>
          </article>
        </section>
      </main>
      <footer className="landing-foot">
        MIT licensed · <a href="/docs">API reference</a>
      </footer>
    </div>
  );
}

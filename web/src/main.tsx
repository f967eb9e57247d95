import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The shared stylesheet first, so a page's own CSS (imported by the page) comes later and wins ties.
import './styles.css';
import { App } from './App';
import { SessionProvider } from './session';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <SessionProvider>
        <App />
      </SessionProvider>
    </StrictMode>,
  );
}

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard is built into dist/web and served by the hosted service itself (src/http/dashboard.ts):
// index.html at `/`, hashed bundles under `/assets/` (a reserved slug, so no link can shadow them).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});

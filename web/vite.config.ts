import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Two apps, one build: the console (/console/) and the courier PWA (/courier/) share React and the
// API client through common chunks under /assets/, which ruta serve caches immutably.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  publicDir: resolve(import.meta.dirname, 'public'),
  build: {
    outDir: resolve(import.meta.dirname, '../dist/web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // The server finds the tracking page's hashed script and stylesheet here (features/tracking/assets.ts).
    manifest: true,
    // Vite's modulepreload polyfill is not needed by the browsers we target; leaving it out keeps
    // every script an external file, which the CSP (script-src 'self') requires.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        console: resolve(import.meta.dirname, 'console/index.html'),
        courier: resolve(import.meta.dirname, 'courier/index.html'),
        // The customer's tracking page: a script for a server-rendered page, no React (src/track/).
        track: resolve(import.meta.dirname, 'src/track/main.ts'),
      },
      output: {
        // React in its own long-lived chunk: app deploys leave it cached on phones and desktops.
        // Rollup's CommonJS helper is shared by React and Leaflet: in a chunk of its own, so the
        // tracking page (Leaflet, no React) does not load React for it.
        manualChunks: (id) => {
          if (/node_modules\/(react|react-dom|scheduler)\//.test(id)) return 'react';
          if (id.includes('commonjsHelpers')) return 'cjs';
          return undefined;
        },
      },
    },
  },
});

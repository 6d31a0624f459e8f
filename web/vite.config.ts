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
    // Vite's modulepreload polyfill is not needed by the browsers we target; leaving it out keeps
    // every script an external file, which the CSP (script-src 'self') requires.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        console: resolve(import.meta.dirname, 'console/index.html'),
        courier: resolve(import.meta.dirname, 'courier/index.html'),
      },
      output: {
        // React in its own long-lived chunk: app deploys leave it cached on phones and desktops.
        manualChunks: (id) => (/node_modules\/(react|react-dom|scheduler)\//.test(id) ? 'react' : undefined),
      },
    },
  },
});

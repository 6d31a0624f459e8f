import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './courier.css';

// The service worker keeps the app shell, so the app opens with no network (public/courier/sw.js).
if ('serviceWorker' in navigator) {
  void navigator.serviceWorker.register('/courier/sw.js', { scope: '/courier/' }).catch(() => {});
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

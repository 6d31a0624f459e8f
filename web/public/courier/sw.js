// Ruta courier service worker: the app shell works offline. The API is never cached here: reads
// go to the network (the app keeps its last route in localStorage), and writes wait in the app's
// IndexedDB queue, which the page sends in order when the network returns.
const CACHE = 'ruta-courier-v1';
const SHELL = ['/courier/', '/courier/manifest.webmanifest', '/courier/icon-192.png', '/courier/icon-512.png'];

/** The shell's HTML names its hashed scripts and styles; those are cached with it. */
async function precache() {
  const cache = await caches.open(CACHE);
  const res = await fetch('/courier/', { cache: 'no-cache' });
  const html = await res.clone().text();
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  await cache.put('/courier/', res);
  await cache.addAll([...SHELL.slice(1), ...new Set(assets)]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith('/v1/')) return;
  // Hashed assets never change: cache first, and keep any lazily loaded chunk for next time.
  if (url.pathname.startsWith('/assets/')) {
    event.respondWith(
      caches.match(req).then(
        (hit) =>
          hit ||
          fetch(req).then((res) => {
            if (res.ok) {
              const copy = res.clone();
              caches.open(CACHE).then((c) => c.put(req, copy));
            }
            return res;
          }),
      ),
    );
    return;
  }
  // Pages: the network when it answers (a deploy is seen at once), the cached shell otherwise.
  if (req.mode === 'navigate' && url.pathname.startsWith('/courier')) {
    event.respondWith(
      fetch(req)
        .then((res) => {
          if (res.ok) {
            const copy = res.clone();
            caches.open(CACHE).then((c) => c.put('/courier/', copy));
          }
          return res;
        })
        .catch(() => caches.match('/courier/')),
    );
    return;
  }
  if (url.pathname.startsWith('/courier/')) {
    event.respondWith(caches.match(req).then((hit) => hit || fetch(req)));
  }
});

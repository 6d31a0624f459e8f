import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A place the local geocoder knows: found when the query contains `match` (case and accents ignored). */
export interface KnownPlace {
  match: string;
  lat: number;
  lng: number;
  /** Nominatim's place_rank: 30 a house, 26 a street, 16 a city. */
  rank: number;
  name: string;
}

export interface LocalGeocoder {
  url: string;
  /** Every request's query and headers, oldest first. */
  requests: { query: URLSearchParams; headers: IncomingHttpHeaders }[];
  /** While true, /search answers 503 (an outage). */
  failing: boolean;
  close(): Promise<void>;
}

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * A local server speaking Nominatim's `/search?format=jsonv2` (https://nominatim.org/release-docs/
 * latest/api/Search/): an array of places with `lat`/`lon` as strings, `display_name`, `place_rank`,
 * `importance`. Tests point RUTA_GEOCODER_URL at it; nothing leaves the machine.
 */
export async function startLocalGeocoder(places: KnownPlace[]): Promise<LocalGeocoder> {
  const state: LocalGeocoder = { url: '', requests: [], failing: false, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    state.requests.push({ query: url.searchParams, headers: req.headers });
    if (url.pathname !== '/search') {
      res.statusCode = 404;
      res.end('[]');
      return;
    }
    if (state.failing) {
      res.statusCode = 503;
      res.end('Service Unavailable');
      return;
    }
    const q = fold(url.searchParams.get('q') ?? '');
    const limit = Number(url.searchParams.get('limit') ?? 10);
    const found = places
      .filter((p) => q.includes(fold(p.match)))
      .sort((a, b) => b.rank - a.rank)
      .slice(0, limit)
      .map((p, i) => ({
        place_id: 1000 + i,
        lat: String(p.lat),
        lon: String(p.lng),
        display_name: p.name,
        place_rank: p.rank,
        importance: 0.5,
        category: p.rank >= 26 ? 'highway' : 'boundary',
        type: p.rank >= 28 ? 'house' : p.rank >= 26 ? 'residential' : 'administrative',
      }));
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(found));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((r) => server.close(() => r()));
  return state;
}

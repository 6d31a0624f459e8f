import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { travelMatrices } from '../src/features/planning/travel.js';
import { loadConfig } from '../src/shared/config.js';

// OSRM's table as a plan reads it: up to 300 places on the calling thread, above that on a thread of
// its own (a 2 000-stop table is ~70 MB of JSON, whose parse would hold up the API's requests;
// bench:plans --osrm measures that). Both paths must read the same answer the same way and fail the
// same way, which is what these tests pin, against a local server answering as OSRM's table service.

type Handler = (req: IncomingMessage, res: ServerResponse, places: number) => void;

let server: Server;
let handle: Handler;
let base: string;
const closed: string[] = [];

beforeAll(async () => {
  // A 300-place URL is ~7 KB; 2 000 places ~45 KB, above Node's default header limit.
  server = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    const coords = (req.url ?? '').split('/table/v1/driving/')[1]?.split('?')[0] ?? '';
    req.on('close', () => closed.push(req.url ?? ''));
    handle(req, res, coords.split(';').length);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const places = (n: number) => Array.from({ length: n }, (_, i) => ({ lat: -12 - i * 1e-4, lng: -77 + i * 1e-4 }));
const config = () => loadConfig({ RUTA_OSRM_URL: base });

/** Seconds i·1000 + j and metres i·100 + j from place i to j; the pair (1, 2) unreachable (null). */
const answer: Handler = (_req, res, n) => {
  const grid = (f: (i: number, j: number) => number) =>
    Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === 1 && j === 2 ? null : f(i, j))));
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({ code: 'Ok', durations: grid((i, j) => i * 1000 + j), distances: grid((i, j) => i * 100 + j) }),
  );
};

describe.each([
  ['on the calling thread', 40],
  ['on a thread of its own', 301],
])('an OSRM table %s (%i places)', (_, n) => {
  it('reads minutes and kilometres row by row, an unreachable pair at a prohibitive cost', async () => {
    handle = answer;
    const { minutes, km } = await travelMatrices(config(), places(n));
    expect(minutes).toHaveLength(n * n);
    for (const [i, j] of [
      [0, 0],
      [0, n - 1],
      [n - 1, 0],
      [7, 13],
      [n - 1, n - 2],
    ] as const) {
      expect(minutes[i * n + j]).toBeCloseTo((i * 1000 + j) / 60, 9);
      expect(km[i * n + j]).toBeCloseTo((i * 100 + j) / 1000, 9);
    }
    expect(minutes[1 * n + 2]).toBe(1e7);
    expect(km[1 * n + 2]).toBe(1e7);
  });

  it("fails with OSRM's code and message when it refuses the query", async () => {
    handle = (_req, res) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 'TooBig', message: 'Too many table coordinates' }));
    };
    await expect(travelMatrices(config(), places(n))).rejects.toThrow(
      /^OSRM table failed: HTTP 400 TooBig Too many table coordinates$/,
    );
  });

  it('fails as an OSRM failure when the answer is not a table or the server is gone', async () => {
    handle = (_req, res) => res.end('<html>502 Bad Gateway</html>');
    await expect(travelMatrices(config(), places(n))).rejects.toThrow(/^OSRM table failed: HTTP 200$/);
    await expect(travelMatrices(loadConfig({ RUTA_OSRM_URL: 'http://127.0.0.1:1' }), places(n))).rejects.toThrow(
      /^OSRM table failed: fetch failed$/,
    );
  });

  it('stops reading when the plan is aborted, and lets go of the connection', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((r) => (received = r));
    handle = () => received(); // never answers
    const abort = new AbortController();
    const read = travelMatrices(config(), places(n), abort.signal);
    await arrived;
    const closedBefore = closed.length;
    abort.abort(new Error('plan cancelled'));
    await expect(read).rejects.toThrow('plan cancelled');
    // The request's socket is closed by the aborted fetch, or with the thread that held it.
    await expect.poll(() => closed.length, { timeout: 10_000 }).toBeGreaterThan(closedBefore);
  });
});

// A stand-in for OSRM's table service, for `npm run bench:plans -- --osrm`: answers
// `/table/v1/driving/{lng,lat;…}?annotations=duration,distance` as OSRM does (seconds and metres,
// one decimal, row-major arrays), from haversine × 1.3 at 24 km/h. Its own process, so that writing
// ~70 MB of JSON for 2 000 places never stalls the bench's probes. `PORT` and `HOST` from the env.
//
//   node --import tsx bench/osrm-server.ts

import { createServer } from 'node:http';
import { haversineKm, type Point, ROAD_FACTOR } from '../src/shared/geo.js';

const KMH = 24;

const server = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
  if (req.url === '/healthz') return res.end('ok');
  const coords = (req.url ?? '').split('/table/v1/driving/')[1]?.split('?')[0];
  if (!coords) {
    res.statusCode = 400;
    return res.end(JSON.stringify({ code: 'InvalidUrl', message: 'URL string malformed' }));
  }
  const points: Point[] = coords.split(';').map((c) => {
    const [lng, lat] = c.split(',').map(Number);
    return { lat: lat as number, lng: lng as number };
  });
  const km = (i: number, j: number) => (i === j ? 0 : haversineKm(points[i]!, points[j]!) * ROAD_FACTOR);
  const rows = (f: (i: number, j: number) => number) => {
    for (let i = 0; i < points.length; i++) {
      const row = new Array<number>(points.length);
      for (let j = 0; j < points.length; j++) row[j] = Math.round(f(i, j) * 10) / 10;
      res.write(`${i === 0 ? '' : ','}[${row.join(',')}]`);
    }
  };
  res.setHeader('content-type', 'application/json; charset=UTF-8');
  res.write('{"code":"Ok","durations":[');
  rows((i, j) => (km(i, j) / KMH) * 3600);
  res.write('],"distances":[');
  rows((i, j) => km(i, j) * 1000);
  res.end(']}');
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');

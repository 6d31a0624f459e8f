/**
 * A load generator process for the tracking-streams scenario: opens `/track/{code}/events` streams
 * from one loopback source address and notes when each courier position first reaches each stream.
 * Driven over IPC by bench/scenarios/tracking-streams.ts:
 *   ← {open: {base, codes, localAddress}}  → {opened, failed, error}
 *   ← {report: true}                        → {arrivals: {"lat,lng": [ms since epoch, one per stream]}}
 *   ← {close: true}                         (exits)
 */
import http from 'node:http';

interface Open {
  base: string;
  codes: string[];
  localAddress: string;
}

const arrivals = new Map<string, number[]>();
const requests: http.ClientRequest[] = [];

function stream(o: Open, code: string): Promise<void> {
  const url = new URL(`/track/${code}/events`, o.base);
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress: o.localAddress,
        agent: false,
        headers: { accept: 'text/event-stream' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`stream answered ${res.statusCode}`));
        }
        let buf = '';
        // The position this stream last showed: a frame re-sent for another reason (the ETA's
        // window moved) repeats it, and only its first arrival counts.
        let last = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const now = Date.now();
          buf += chunk;
          let at = buf.indexOf('\n\n');
          while (at !== -1) {
            const block = buf.slice(0, at);
            buf = buf.slice(at + 2);
            at = buf.indexOf('\n\n');
            const data = block.indexOf('data: ');
            if (data === -1 || !block.startsWith('event: tracking')) continue;
            const c = (JSON.parse(block.slice(data + 6)) as { courier: { lat: number; lng: number } | null }).courier;
            if (!c) continue;
            const key = `${c.lat},${c.lng}`;
            if (key === last) continue;
            last = key;
            const list = arrivals.get(key);
            if (list) list.push(now);
            else arrivals.set(key, [now]);
          }
        });
        resolve();
      },
    );
    req.on('error', reject);
    requests.push(req);
  });
}

async function open(o: Open): Promise<{ opened: number; failed: number; error: string | null }> {
  let opened = 0;
  let failed = 0;
  let error: string | null = null;
  let next = 0;
  // 32 at a time: a burst of thousands of connects would measure the accept queue, not the streams.
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < o.codes.length) {
        const code = o.codes[next++] as string;
        try {
          await stream(o, code);
          opened++;
        } catch (err) {
          failed++;
          error ??= err instanceof Error ? err.message : String(err);
        }
      }
    }),
  );
  return { opened, failed, error };
}

process.on('message', (m: { open?: Open; report?: boolean; close?: boolean }) => {
  if (m.open) void open(m.open).then((r) => process.send?.(r));
  if (m.report) process.send?.({ arrivals: Object.fromEntries(arrivals) });
  if (m.close) {
    for (const r of requests) r.destroy();
    process.exit(0);
  }
});

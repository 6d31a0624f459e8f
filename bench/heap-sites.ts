/**
 * Where a piece of code allocates, garbage included: V8's sampling heap profiler run through the
 * inspector with the objects later collected by scavenges and full GCs kept in the samples (what
 * `node --heap-prof` leaves out: it reports only what is still alive at its end, which for a
 * request path is almost nothing). `allocationSites` ranks the profile's nodes by their own
 * sampled bytes, per call of `perUnit` (one create, say).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

export interface HeapSampler {
  /** Stops sampling; writes the profile (`.heapprofile`, Chrome DevTools opens it) if `file` is given. */
  stop(file?: string): Promise<ProfileNode>;
}

/** Starts sampling every `interval` bytes on average (V8's default is 32 KiB; smaller is finer and slower). */
export async function startHeapSampling(interval = 8192): Promise<HeapSampler> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop(file) {
      const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
      session.disconnect();
      if (file) writeFileSync(file, JSON.stringify(profile));
      return profile.head;
    },
  };
}

/** The project's own code: src/ under tsx, dist/ when the built files are profiled. */
const isOurs = (n: ProfileNode) => /\/(src|dist)\//.test(n.callFrame.url) && !n.callFrame.url.includes('node_modules');

const where = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  const file = url === '' ? '(native)' : relative(process.cwd(), url);
  return `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`;
};

/**
 * The `top` allocation sites by own bytes, each with the nearest caller in the project's own code
 * (src/), so that a library's allocation says which of our calls made it. Bytes per unit of `units`.
 */
export function allocationSites(head: ProfileNode, units: number, top = 25): string[] {
  const sites = new Map<string, number>();
  let total = 0;
  const walk = (n: ProfileNode, ours: string) => {
    const own = isOurs(n) ? where(n) : ours;
    if (n.selfSize > 0) {
      const key = own === where(n) ? own : `${where(n)}  ← ${own}`;
      sites.set(key, (sites.get(key) ?? 0) + n.selfSize);
      total += n.selfSize;
    }
    for (const c of n.children) walk(c, own);
  };
  walk(head, '(outside src)');
  const ranked = [...sites].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `sampled ${(total / units / 1024).toFixed(1)} KB per unit`,
    ...ranked.map(([k, v]) => `${(v / units / 1024).toFixed(2).padStart(7)} KB  ${k}`),
  ];
}

/** The same profile summed by our own caller only (src/ functions, inclusive of the libraries they call). */
export function allocationByOwnCode(head: ProfileNode, units: number, top = 25): string[] {
  const sites = new Map<string, number>();
  const walk = (n: ProfileNode, ours: string) => {
    const own = isOurs(n) ? where(n) : ours;
    if (n.selfSize > 0) sites.set(own, (sites.get(own) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c, own);
  };
  walk(head, '(outside src)');
  return [...sites]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `${(v / units / 1024).toFixed(2).padStart(7)} KB  ${k}`);
}

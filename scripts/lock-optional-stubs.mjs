// The package registry these machines reach serves only some platforms' builds of packages such as
// @biomejs/cli-* and @rollup/rollup-*. npm then writes a lock file without entries for the others,
// and `npm ci` refuses that lock file ("Missing: … from lock file", npm/cli#9846). This adds an
// entry for each missing optional platform package, with its os/cpu from the parent's declaration
// where known, so `npm ci` accepts the lock; npm skips those entries on platforms they don't match.
// Run it after any `npm install` that changes package-lock.json: `node scripts/lock-optional-stubs.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

// Platform triples read from the package names npm uses for native builds.
const OS = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'netbsd', 'sunos', 'win32', 'aix', 'openharmony', 'cygwin'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 'riscv64', 's390x', 'loong64', 'mips64el', 'ppc', 'wasm32'];
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p) || p === 'armv7' || p === 'aarch64');
  const libc = os === 'linux' && name.includes('musl') ? 'musl' : os === 'linux' && name.includes('gnu') ? 'glibc' : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [key, pkg] of Object.entries(packages)) {
  if (key === '' || !pkg.optionalDependencies) continue;
  const base = key;
  for (const [dep, version] of Object.entries(pkg.optionalDependencies)) {
    // npm resolves from the nearest node_modules: the package's own, then the root's.
    const nested = `${base}/node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[nested] || packages[hoisted]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os && !cpu) continue;
    packages[hoisted] = {
      version: String(version).replace(/^[\^~=]/, ''),
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-optional-stubs: added ${added} entries`);

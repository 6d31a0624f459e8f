import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Node's arguments that start the `ruta` CLI as its users run it: the build in dist/ that `npm ci`
 * makes. test/global-setup.ts builds it again first when a file in src/ is newer, so a stale build
 * can neither pass nor fail a test. Started from the build, the CLI takes about a third of the CPU
 * it took through tsx (1.1 s against 3 s here), and the suite starts it a few hundred times.
 */
export const RUTA_CLI: readonly string[] = [join(ROOT, 'dist', 'cli.js')];

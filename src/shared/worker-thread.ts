import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside the calling module (`from`, its import.meta.url).
 * From dist/ that is `name.js`; under tsx or Vitest (the caller is a .ts file) it is `name.ts`, and
 * the worker first registers tsx's loader, since a worker does not inherit the parent's hooks.
 */
export function startWorker(from: string, name: string, options: WorkerOptions = {}): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, from), options);
  return new Worker(viaTsx(new URL(`./${name}.ts`, from).href), { ...options, eval: true });
}

/** A worker bootstrap that registers tsx's loader in the worker, then loads the TypeScript entry. */
function viaTsx(entry: string): string {
  // `tsx/esm/api` as an ES module (its `import` export); the CommonJS build misplaces its hooks when imported.
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = pathToFileURL(join(dirname(pkg), 'dist/esm/api/index.mjs')).href;
  return `import(${JSON.stringify(api)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
}

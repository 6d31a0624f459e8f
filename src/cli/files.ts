import { type MigrateProgress, migrateFiles } from '../features/files/migrate.js';
import { openFileStore } from '../features/files/store.js';
import { loadConfig } from '../shared/config.js';
import type { AppContext } from '../shared/context.js';
import { formatFilesUrl, parseFilesUrl } from '../shared/files-url.js';
import { type Command, UsageError, withContext } from './command.js';

const USAGE = `  files migrate --to URL [--concurrency N] [--json]
                                          copies every file from RUTA_FILES_URL's store to URL
                                          (file:DIR or s3://bucket/prefix?…), checking each one's
                                          SHA-256; reruns skip what is there. Then switch RUTA_FILES_URL`;

const line = (p: MigrateProgress) =>
  `${p.done}/${p.total} files: ${p.copied} copied, ${p.present} already there, ${p.missing.length} missing, ${p.failed.length} failed`;

/** `ruta files migrate --to URL`: exit 0 when every file row has its verified object in the target. */
export const filesMigrateCommand: Command = {
  name: 'files migrate',
  usage: USAGE,
  options: { to: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'boolean' } },
  plan({ values }) {
    if (typeof values.to !== 'string' || values.to === '') throw new UsageError('--to URL is required');
    let to: string;
    try {
      to = formatFilesUrl(parseFilesUrl(values.to));
    } catch (err) {
      throw new UsageError(`--to ${(err as Error).message}`);
    }
    const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
      throw new UsageError('--concurrency must be an integer from 1 to 64');
    }
    if (loadConfig().filesUrl === to) throw new UsageError(`--to is the store RUTA_FILES_URL already names (${to})`);
    return () => withContext((ctx) => migrate(ctx, to, concurrency, Boolean(values.json)));
  },
};

async function migrate(ctx: AppContext, to: string, concurrency: number, json: boolean): Promise<number> {
  const source = openFileStore(ctx.config.filesUrl);
  const target = openFileStore(to);
  try {
    await target.check().catch((err: Error) => {
      throw new Error(`the target store does not answer: ${err.name}: ${err.message}`);
    });
    console.error(`Copying files from ${source.url} to ${target.url}`);
    let shown = 0;
    const seen = { missing: 0, failed: 0 };
    const result = await migrateFiles(ctx, source, target, {
      concurrency,
      onProgress: (p) => {
        for (const id of p.missing.slice(seen.missing)) console.error(`missing: ${id} is in neither store`);
        for (const f of p.failed.slice(seen.failed)) console.error(`failed: ${f.id}: ${f.reason}`);
        seen.missing = p.missing.length;
        seen.failed = p.failed.length;
        // A line per 100 files (and the last): progress without a line per file on large stores.
        if (p.done - shown >= 100 || p.done === p.total) {
          shown = p.done;
          console.error(line(p));
        }
      },
    });
    const ok = result.missing.length === 0 && result.failed.length === 0;
    if (json) {
      console.log(JSON.stringify({ from: source.url, to: target.url, ...result }));
    } else {
      console.log(line(result));
      console.log(
        ok
          ? `Every file is in ${target.url}. Set RUTA_FILES_URL to it and restart; run this again after the switch to copy what was uploaded meanwhile.`
          : 'Some files were not copied (listed above); the source is untouched. Fix them and run this again: copied files are skipped.',
      );
    }
    return ok ? 0 : 1;
  } finally {
    await source.close();
    await target.close();
  }
}

import { readFileSync } from 'node:fs';
import { findAccount } from '../features/accounts/repo.js';
import * as importsRepo from '../features/imports/repo.js';
import { LEASE_MS, type Progress, runImport } from '../features/imports/run.js';
import { MAX_SHOWN_ERRORS } from '../features/imports/schemas.js';
import { createImport, getImport, type PresentedImport } from '../features/imports/service.js';
import type { AppContext } from '../shared/context.js';
import type { DateFormat, ImportDuplicates, ImportMode, ImportType } from '../shared/db/tables/order_imports.js';
import { ApiError } from '../shared/errors.js';
import { randomToken } from '../shared/ids.js';

// `ruta orders import FILE` once its arguments are checked (orders-import.ts): the import, run in
// this process with a progress bar, or followed when a server's runner claims it first.

/** What orders-import.ts read off the command line. */
export interface ImportPlan {
  file: string;
  type: ImportType;
  account: string;
  mode: 'test' | 'live';
  importMode: ImportMode;
  duplicates: ImportDuplicates;
  dateFormat?: DateFormat;
  json: boolean;
}

/** A bar on a terminal (redrawn in place on stderr), a plain line per batch otherwise. */
function progressPrinter(json: boolean) {
  const tty = Boolean(process.stderr.isTTY) && !json;
  return (p: Progress) => {
    const pct = p.total === 0 ? 100 : Math.floor((p.processed / p.total) * 100);
    const skipped = p.skipped > 0 ? ` · ${p.skipped} skipped` : '';
    const tail = `${p.processed}/${p.total} rows · ${p.created} created · ${p.failed} failed${skipped}`;
    if (tty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}% ${tail}`,
      );
      if (p.processed >= p.total) process.stderr.write('\n');
    } else if (!json) process.stderr.write(`${pct}% ${tail}\n`);
  };
}

function summary(imp: PresentedImport): string {
  const skipped =
    imp.skipped > 0
      ? `, ${imp.skipped} order${imp.skipped === 1 ? '' : 's'} skipped (external_order_id already taken)`
      : '';
  const lines = [
    `Import ${imp.id}: ${imp.status}. ${imp.created} order${imp.created === 1 ? '' : 's'} created, ${imp.failed} row${imp.failed === 1 ? '' : 's'} rejected${skipped} (of ${imp.total_rows}).`,
  ];
  if (imp.failure_message) lines.push(imp.failure_message);
  for (const e of imp.errors.slice(0, 20)) {
    lines.push(`  row ${e.row}${e.column ? ` [${e.column}]` : ''}: ${e.message} (${e.code})`);
  }
  if (imp.errors.length > 20) {
    // The import object holds the first MAX_SHOWN_ERRORS; the file has every one.
    const capped = imp.errors.length >= MAX_SHOWN_ERRORS ? ', and more in failed_rows.csv' : '';
    lines.push(`  … and ${imp.errors.length - 20} more on the import${capped}`);
  }
  if (imp.failed > 0) lines.push(`Rejected rows with their reasons: GET /v1/order_imports/${imp.id}/failed_rows.csv`);
  if (imp.warnings.length > 0) lines.push('Warnings:');
  for (const w of imp.warnings.slice(0, 20)) {
    lines.push(`  row ${w.row}${w.column ? ` [${w.column}]` : ''}: ${w.message} (${w.code})`);
  }
  if (imp.warnings.length > 20) lines.push(`  … and ${imp.warnings.length - 20} more on the import`);
  return lines.join('\n');
}

/** Runs the import; returns the exit code (0 all imported, 3 some rows rejected, 1 nothing imported). */
export async function ordersImport(ctx: AppContext, plan: ImportPlan): Promise<number> {
  if (!(await findAccount(ctx.db, plan.account))) throw new Error(`no such account: ${plan.account}`);
  const owner = { accountId: plan.account, mode: plan.mode };
  let created: PresentedImport;
  try {
    created = await createImport(ctx, owner, {
      type: plan.type,
      bytes: readFileSync(plan.file),
      mode: plan.importMode,
      duplicates: plan.duplicates,
      dateFormat: plan.dateFormat,
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (plan.json) console.log(JSON.stringify({ error: { code: err.code, message: err.message } }));
    else console.error(`ruta: ${plan.file}: ${err.message}`);
    return 1;
  }
  const show = progressPrinter(plan.json);
  const workerId = `imp_cli_${randomToken(12)}`;
  const now = ctx.clock();
  const claimed = await importsRepo.claimImport(ctx.db, ctx.engine, {
    owner: workerId,
    now,
    leaseUntil: now + LEASE_MS,
    id: created.id,
  });
  if (claimed) {
    await runImport(ctx, claimed, { owner: workerId, onProgress: show });
  } else {
    // A server's runner took it first: follow its progress.
    for (;;) {
      const cur = await getImport(ctx, owner, created.id);
      show({
        processed: cur.processed_rows,
        total: cur.total_rows,
        created: cur.created,
        failed: cur.failed,
        skipped: cur.skipped,
      });
      if (cur.status === 'succeeded' || cur.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const done = await getImport(ctx, owner, created.id);
  if (plan.json) console.log(JSON.stringify(done));
  else console.log(summary(done));
  // Every order skipped as a duplicate is not a failure: the file had nothing new.
  if (done.status === 'failed' || done.created + done.skipped === 0) return 1;
  return done.failed > 0 ? 3 : 0;
}

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { type Ctx, round, Skip } from './context.js';

/** utime + stime of a process, in seconds (Linux /proc; clock ticks are 100 Hz there). */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export interface ImportResult {
  rows: number;
  /** POST of the file to `succeeded`: upload, parsing, checking, pricing and writing every order. */
  seconds: number;
  rows_per_s: number;
  created: number;
  /** CPU time the server process used meanwhile: steadier than wall time on a shared machine (PostgreSQL's own CPU is not in it). */
  server_cpu_s: number | null;
  /** 1-minute load average when the import started: how busy the machine was. */
  load_avg: number;
}

export const IMPORT_ROWS = 10_000;

/** A 10 000-row CSV: one order per row, with phone, coordinates, a time window, an item and COD. */
export function importCsv(rows = IMPORT_ROWS): string {
  const head =
    'external_order_id,customer_name,customer_phone,address,district,city,lat,lng,time_window_start,time_window_end,cash_on_delivery,item_sku,item_description,item_quantity,item_weight_kg';
  const lines = [head];
  for (let i = 0; i < rows; i++) {
    const lat = (-12.05 - (i % 100) * 0.001).toFixed(5);
    const lng = (-77.04 + (i % 37) * 0.001).toFixed(5);
    lines.push(
      `BULK-${i},Cliente ${i},+5198765${String(i % 10000).padStart(4, '0')},Av. Arequipa ${i},Miraflores,Lima,${lat},${lng},09:00,13:00,${i % 3 === 0 ? '25.50' : '0'},SKU-${i % 50},Caja ${i},1,1.5`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * DESIGN §11: 10 000 rows in under 10 s. Uploads the file to the running `ruta serve` (its
 * in-process import runner does the work) and polls the import until it has finished.
 */
export async function importScenario(ctx: Ctx): Promise<ImportResult> {
  const body = importCsv();
  const load = loadavg()[0] ?? 0;
  const cpu0 = cpuSeconds(ctx.server.pid);
  const t0 = performance.now();
  const res = await fetch(`${ctx.server.base}/v1/order_imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.merchantKey}`, 'content-type': 'text/csv' },
    body,
  });
  const created = (await res.json()) as { id?: string };
  if (res.status === 404) throw new Skip('POST /v1/order_imports answered 404: not in this build');
  if (res.status !== 202 || !created.id) throw new Skip(`POST /v1/order_imports answered ${res.status}`);
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    const r = await fetch(`${ctx.server.base}/v1/order_imports/${created.id}`, {
      headers: { authorization: `Bearer ${ctx.merchantKey}` },
    });
    const imp = (await r.json()) as { status: string; created: number; failed: number; total_rows: number };
    if (imp.status === 'succeeded' || imp.status === 'failed') {
      const seconds = (performance.now() - t0) / 1000;
      if (imp.created !== IMPORT_ROWS)
        throw new Skip(`import ${imp.status}: ${imp.created} created, ${imp.failed} failed`);
      const cpu1 = cpuSeconds(ctx.server.pid);
      const cpu = cpu0 === null || cpu1 === null ? null : round(cpu1 - cpu0, 2);
      ctx.log(`import: ${imp.total_rows} rows in ${round(seconds, 2)} s (server CPU ${cpu} s, load ${round(load, 1)})`);
      return {
        rows: imp.total_rows,
        seconds: round(seconds, 2),
        rows_per_s: Math.round(imp.total_rows / seconds),
        created: imp.created,
        server_cpu_s: cpu,
        load_avg: round(load, 1),
      };
    }
  }
}

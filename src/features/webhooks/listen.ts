import pg from 'pg';
import type { pino } from 'pino';

/**
 * PostgreSQL wake-ups: a trigger on webhook_deliveries NOTIFYs `ruta_webhooks` at commit (see
 * 003_webhooks), so every worker, in any process, wakes exactly when new deliveries are visible.
 * One dedicated connection per dispatcher (LISTEN holds its session). If it drops, the dispatcher's
 * fallback poll keeps deliveries moving and calls connect() again.
 */
export class WakeListener {
  private client: pg.Client | undefined;
  private live = false;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly onWake: () => void,
    private readonly log?: pino.Logger,
  ) {}

  /** LISTEN is established: commits (this process's too) wake the dispatcher by NOTIFY. */
  get listening(): boolean {
    return this.live;
  }

  /** Connects and LISTENs, unless already connected or connecting; never throws. */
  async connect(): Promise<void> {
    if (this.client || this.stopped) return;
    const client = new pg.Client({ connectionString: this.url });
    this.client = client;
    client.on('notification', () => this.onWake());
    client.on('error', () => {
      if (this.client === client) {
        this.client = undefined;
        this.live = false;
      }
      void client.end().catch(() => {});
    });
    try {
      await client.connect();
      await client.query('LISTEN ruta_webhooks');
      if (this.client === client) this.live = true;
    } catch (err) {
      this.log?.warn({ err }, 'webhook dispatcher: LISTEN failed; polling');
      if (this.client === client) this.client = undefined;
      await client.end().catch(() => {});
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}

/**
 * State that belongs to one app instance (a buffer, a hub of open connections) rather than to the
 * process: created on first use from the instance's context and closed with it (app.close()). A
 * feature declares its key next to its class and reads `ctx.instance.get(KEY)`; two apps in one
 * process each get their own.
 */
export interface Closeable {
  close(): Promise<void> | void;
}

export interface InstanceKey<T extends Closeable, C> {
  readonly name: string;
  readonly create: (ctx: C) => T;
}

export function instanceKey<T extends Closeable, C>(name: string, create: (ctx: C) => T): InstanceKey<T, C> {
  return { name, create };
}

export class Instance<C> {
  private readonly made = new Map<InstanceKey<Closeable, C>, Closeable>();
  private ctx: C | undefined;

  /** Called once by createContext, which builds the context this instance hands to factories. */
  bind(ctx: C): void {
    this.ctx = ctx;
  }

  get<T extends Closeable>(key: InstanceKey<T, C>): T {
    let v = this.made.get(key as InstanceKey<Closeable, C>);
    if (v === undefined) {
      if (this.ctx === undefined) throw new Error('instance used before its context was built');
      v = key.create(this.ctx);
      this.made.set(key as InstanceKey<Closeable, C>, v);
    }
    return v as T;
  }

  /** The one already made, if any (closing must not create what nobody used). */
  peek<T extends Closeable>(key: InstanceKey<T, C>): T | undefined {
    return this.made.get(key as InstanceKey<Closeable, C>) as T | undefined;
  }

  /** Closes everything made, newest first (a later resource may use an earlier one while closing). */
  async close(): Promise<void> {
    for (const v of [...this.made.values()].reverse()) await v.close();
  }
}

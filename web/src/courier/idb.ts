/**
 * The phone's IndexedDB database, which survives a reload, a crash or a dead battery: the outbox of
 * actions (queue.ts) and the location points waiting for the server's confirmation (points.ts).
 */
const DB_NAME = 'ruta-courier';
/** 1: the outbox (queue, files, failed). 2: points, kept until a 2xx says they are stored (issue 18 #11). */
const VERSION = 2;

export function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, VERSION);
    req.onupgradeneeded = () => {
      // Each store made if missing, whatever version the phone had (a v1 database gains `points`).
      const db = req.result;
      const has = (name: string) => db.objectStoreNames.contains(name);
      if (!has('queue')) db.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
      // localId → server file id, kept until the moves naming it are sent.
      if (!has('files')) db.createObjectStore('files');
      if (!has('failed')) db.createObjectStore('failed', { keyPath: 'seq' });
      if (!has('points')) db.createObjectStore('points', { keyPath: 'seq', autoIncrement: true });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** One transaction on one store; resolves with `fn`'s result once the transaction has committed. */
export function tx<T>(store: string, mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return run(store, mode, (s) => {
    const req = fn(s);
    return () => req.result;
  });
}

/**
 * One transaction on one store for several requests: `fn` queues them and answers how to read the
 * result once the transaction has committed (a request's result is final only then).
 */
export function run<T>(store: string, mode: IDBTransactionMode, fn: (s: IDBObjectStore) => () => T): Promise<T> {
  return openDb().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const t = db.transaction(store, mode);
        const result = fn(t.objectStore(store));
        t.oncomplete = () => {
          db.close();
          resolve(result());
        };
        t.onerror = () => {
          db.close();
          reject(t.error);
        };
        t.onabort = () => {
          db.close();
          reject(t.error);
        };
      }),
  );
}

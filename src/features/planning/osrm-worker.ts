import { parentPort, workerData } from 'node:worker_threads';
import { fetchTable, type OsrmJob } from './osrm.js';

// The body of an OSRM table's thread (osrm.ts): fetch, parse and write one table into the shared
// matrices, then say whether it worked. Only the API's thread is spared: the parse still takes the
// time it takes, on a core the event loop is not using.

const port = parentPort;
if (port) {
  const { url, minutes, km } = workerData as OsrmJob;
  fetchTable(url, { minutes: new Float64Array(minutes), km: new Float64Array(km) }).then(
    () => port.postMessage({}),
    (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
}

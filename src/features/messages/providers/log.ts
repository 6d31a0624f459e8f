import type { pino } from 'pino';
import type { Provider } from './types.js';

/**
 * The default provider, and the only one test mode uses: the message is stored and shown in the
 * console, and nothing leaves the machine. The log line carries no address or text.
 */
export function logProvider(log: pino.Logger): Provider {
  return {
    name: 'log',
    async send(m) {
      log.info({ message: m.id, channel: m.channel }, 'message kept by the log provider');
      return { ok: true, providerId: `log_${m.id}` };
    },
  };
}

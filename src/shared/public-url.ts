/**
 * Rules about the address Ruta gives phones and browsers (RUTA_PUBLIC_URL, sign-in links). Pure:
 * the server's start-up warning (config.ts) and the console's "Sign in a phone" (web) share them.
 */

/** Whether a URL names this machine only (localhost, 127.0.0.0/8, ::1): a phone given such a link cannot open it. */
export function isLoopbackUrl(url: string): boolean {
  const host = hostOf(url);
  return (
    host !== undefined &&
    (host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1')
  );
}

/**
 * Whether a URL is plain http to another machine: a phone opens it, but not as a secure context,
 * so browsers give the courier app no location, camera or service worker (docs/operations.md).
 */
export function isPlainHttpUrl(url: string): boolean {
  return protocolOf(url) === 'http:' && !isLoopbackUrl(url);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

function protocolOf(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return undefined;
  }
}

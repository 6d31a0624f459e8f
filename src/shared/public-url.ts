/**
 * Rules about the address Ruta gives phones and browsers (RUTA_PUBLIC_URL, sign-in links). Pure:
 * the server's start-up warning (config.ts) and the console's "Sign in a phone" (web) share them.
 */

/** Whether a URL names this machine only (localhost, 127.0.0.0/8, ::1): a phone given such a link cannot open it. */
export function isLoopbackUrl(url: string): boolean {
  const host = parsed(url)
    ?.hostname.replace(/^\[|\]$/g, '')
    .toLowerCase();
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
  return parsed(url)?.protocol === 'http:' && !isLoopbackUrl(url);
}

/** The URL, or undefined for text that is none (a sign-in link the API did not give). */
function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

// Kept out of the request log: bearer tokens in invitation and reset paths, and these query parameters.
const TOKEN_PATH = /^(\/v1\/(?:invitations|password_resets)\/)(?!inv_|pwr_)[^/?]+/;
const TOKEN_QUERY = new Set(['signature', 'token', 'hub.verify_token']);

/**
 * A request's URL as the request log shows it: the bearer tokens some URLs carry are replaced by
 * `[redacted]`. They are the single-use tokens of invitation and password-reset links (in the path:
 * whoever reads them could accept the invitation or set the password first), the signature of signed
 * file links, the email unsubscribe token (it also encodes the address) and Meta's verify token.
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(TOKEN_PATH, '$1[redacted]');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {}
      return TOKEN_QUERY.has(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

import { useEffect, useState } from 'react';

/** Hash routes (#/board, #/orders/ord_…): they need no server rewrite and survive a reload. */
const read = () => (location.hash.replace(/^#\/?/, '').split('?')[0] || 'board').split('/').map(decodeURIComponent);

export function useRoute(): string[] {
  const [parts, setParts] = useState(read);
  useEffect(() => {
    const on = () => setParts(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return parts;
}

export function go(path: string): void {
  location.hash = `#/${path}`;
}

/** The query of the hash (`#/board?day=2026-07-01`): a page's own state, kept in the URL. */
export function hashQuery(): URLSearchParams {
  const at = location.hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : location.hash.slice(at + 1));
}

/**
 * Rewrites the hash's query without a history entry or a hashchange: a filter change is not a
 * navigation, and the page that owns the state needs no re-render from it.
 */
export function setHashQuery(q: URLSearchParams): void {
  const path = location.hash.replace(/^#\/?/, '').split('?')[0] || 'board';
  const text = q.toString();
  history.replaceState(history.state, '', `#/${path}${text ? `?${text}` : ''}`);
}

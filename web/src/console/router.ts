import { useEffect, useState } from 'react';

/** Hash routes (#/board, #/orders/ord_…): they need no server rewrite and survive a reload. */
const read = () => (location.hash.replace(/^#\/?/, '') || 'board').split('/').map(decodeURIComponent);

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

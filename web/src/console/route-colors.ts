/**
 * One colour per courier's route, the same on the board, the planning page and the live map.
 * A courier's colour is its place among the carrier's couriers in creation order (ids sort by
 * time), so adding a courier never changes anyone else's, and the first dozen never share one.
 * A courier missing from the roster a page has (more than a page of couriers) falls back to a
 * hash of its id: still the same on every page.
 */
export const ROUTE_COLORS = [
  '#0b5fff',
  '#16a34a',
  '#d97706',
  '#9333ea',
  '#dc2626',
  '#0891b2',
  '#db2777',
  '#65a30d',
  '#4f46e5',
  '#b45309',
  '#0f766e',
  '#be123c',
];

export function routeColor(courierId: string, roster: readonly { id: string }[]): string {
  const sorted = roster.map((c) => c.id).sort();
  let i = sorted.indexOf(courierId);
  if (i < 0) {
    i = 0;
    for (const ch of courierId) i = (i * 31 + ch.charCodeAt(0)) >>> 0;
  }
  return ROUTE_COLORS[i % ROUTE_COLORS.length]!;
}

/**
 * A stop picked on the plan's map: its row in the lanes takes the focus (scrolled into view), where
 * the keyboard shortcuts and the Move controls act on it. Through the page, not React state: the
 * map is drawn outside React and the row may be in any lane.
 */
export function pickStop(orderId: string): void {
  const row = document.querySelector<HTMLElement>(`.plan-routes li[data-order="${orderId}"]`);
  if (!row) return;
  row.scrollIntoView({ block: 'center' });
  row.focus();
}

import { type DragEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { type ApiFailure, unwrap } from '../../shared/api';
import { useSession } from '../session';
import { clock, type RoutePlan } from './common';
import { lanesOf, moveBody, type Target } from './edit-plan';

/**
 * Moving a plan's stops before its commit: by drag and drop, by a stop's buttons and select, or by
 * a digit key on a focused stop. Each move is one PATCH; the answer replaces the plan, and what it
 * came to is said to a screen reader.
 */
export function usePlanMoves({
  plan,
  setPlan,
  lanes,
  courierName,
  orderName,
  tz,
}: {
  plan: RoutePlan;
  setPlan: (p: RoutePlan) => void;
  lanes: Map<string, string[]>;
  courierName: (cid: string) => string;
  orderName: (oid: string) => string;
  tz: string;
}) {
  const { client } = useSession();
  const editable = plan.committed_at === null;
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiFailure | Error | null>(null);
  const [said, setSaid] = useState('');
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  /** After a keyboard move, the control to focus again once the list is redrawn. */
  const refocus = useRef<{ order: string; control: string } | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    // Runs once the answer is drawn: setPlan and setSaving(false) land in the same render.
    const want = refocus.current;
    if (!want || saving) return;
    refocus.current = null;
    const item = rootRef.current?.querySelector(`[data-order="${want.order}"]`);
    const el =
      (want.control === 'row' ? (item as HTMLElement | null) : null) ??
      item?.querySelector<HTMLElement>(`[data-control="${want.control}"]:not(:disabled)`) ??
      item?.querySelector<HTMLElement>('[data-control="dest"]');
    el?.focus();
  }, [saving]);

  async function move(orderId: string, target: Target, control?: string) {
    const body = moveBody(plan, orderId, target);
    if (!body || saving) return;
    setSaving(true);
    setError(null);
    if (control) refocus.current = { order: orderId, control };
    try {
      const p = await unwrap(client.PATCH('/v1/route_plans/{id}', { params: { path: { id: plan.id } }, body }));
      setPlan(p);
      const where = target.courier === null ? 'Not planned' : courierName(target.courier);
      const stop = p.routes?.flatMap((r) => r.stops).find((s) => s.order_id === orderId);
      const index = target.courier === null ? -1 : (lanesOf(p).get(target.courier) ?? []).indexOf(orderId);
      setSaid(
        `${orderName(orderId)} moved to ${where}${index >= 0 ? `, stop ${index + 1}` : ''}${stop ? `, arrives ${clock(stop.arrival_at, tz)}` : ''}${stop?.violations.length ? `. Warning: ${stop.violations.map((v) => v.message).join('; ')}` : ''}.`,
      );
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setSaving(false);
    }
  }

  // HTML5 drag and drop: the order id travels in dataTransfer; a drop on a stop's upper half goes
  // before it, on its lower half after it; a drop on a lane's free space goes to its end.
  const dragProps = (orderId: string) =>
    editable
      ? {
          draggable: !saving,
          onDragStart: (e: DragEvent) => {
            e.dataTransfer.setData('text/plain', orderId);
            e.dataTransfer.effectAllowed = 'move';
            setDragging(orderId);
          },
          onDragEnd: () => {
            setDragging(null);
            setOver(null);
          },
        }
      : {};
  const dropProps = (key: string, target: (e: DragEvent) => Target) =>
    editable
      ? {
          onDragOver: (e: DragEvent) => {
            if (!dragging) return;
            e.preventDefault();
            e.stopPropagation();
            e.dataTransfer.dropEffect = 'move';
            setOver(key);
          },
          onDragLeave: () => setOver((o) => (o === key ? null : o)),
          onDrop: (e: DragEvent) => {
            e.preventDefault();
            e.stopPropagation();
            const id = e.dataTransfer.getData('text/plain') || dragging;
            setDragging(null);
            setOver(null);
            if (id) void move(id, target(e));
          },
        }
      : {};
  const beforeOrAfter = (courier: string, stops: string[], k: number) => (e: DragEvent) => {
    const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
    const lower = e.clientY > box.top + box.height / 2;
    return { courier, before: lower ? (stops[k + 1] ?? null) : (stops[k] as string) };
  };

  /**
   * Shortcuts on a focused stop (picked on the map, or tabbed to): 1–9 moves it to the end of that
   * courier's lane (in the order shown), 0 leaves it out of the plan.
   */
  function shortcut(e: KeyboardEvent, orderId: string, from: string | null) {
    if (!editable || saving || e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
    if (!/^[0-9]$/.test(e.key)) return;
    const n = Number(e.key);
    const to = n === 0 ? null : ([...lanes.keys()][n - 1] ?? undefined);
    if (to === undefined || to === from) return;
    e.preventDefault();
    void move(orderId, to === null ? { courier: null } : { courier: to, before: null }, 'row');
  }

  return { saving, error, said, dragging, over, rootRef, move, dragProps, dropProps, beforeOrAfter, shortcut };
}

import { type Dispatch, type SetStateAction, useCallback, useEffect, useState } from 'react';
import { addDays, isCalendarDay, localDay } from '../../../../src/shared/local-time.js';
import { allCouriers, allDepots, allOrders, type Courier, type Order, unwrap } from '../../shared/api';
import { useSerial } from '../../shared/serial';
import type { LiveHandlers } from '../live';
import type { Session } from '../session';
import { ASSIGNABLE, type Depot, type RoutePlan, running } from './common';

/**
 * The depots, active couriers and assignable orders the planning page works from: the depots and
 * couriers read once it mounts, the orders for `date` (again when it changes). `tz` is the user's zone.
 */
export function usePlanningData(
  client: Session['client'],
  setDepotId: Dispatch<SetStateAction<string>>,
  date: string,
  tz: string,
) {
  const [depots, setDepots] = useState<Depot[] | null>(null);
  const [couriers, setCouriers] = useState<Courier[] | null>(null);
  /** Every courier, disabled ones too: a route's colour is its courier's place among them. */
  const [roster, setRoster] = useState<{ id: string }[]>([]);
  const [orders, setOrders] = useState<Order[] | null>(null);
  /** Every order this page has read, so a committed plan still names its stops. */
  const [known, setKnown] = useState<Map<string, Order>>(new Map());
  const [loadError, setLoadError] = useState<unknown>(null);

  const remember = useCallback((list: Order[]) => {
    setKnown((prev) => {
      const next = new Map(prev);
      for (const o of list) next.set(o.id, o);
      return next;
    });
  }, []);

  // The orders a plan for `date` takes (due that day, or undated: repo.ts assignableOrders), asked
  // of the server by day. Reading every assignable order, newest first, stopped at 1 000 of each
  // status: a merchant's import for a later day hid the day's own orders ("No order to plan").
  const readOrders = useCallback(async () => {
    if (!isCalendarDay(date)) return setOrders([]);
    try {
      const all: Order[] = [];
      // An undated order is due on the day it was created (due_on), never after today (its zone's
      // today, a zone ahead of the user's aside), so those of other days are before `date`, or
      // after it up to today when planning a past day.
      const today = localDay(Date.now(), tz);
      const ranges: { due_on?: string; due_from?: string; due_to?: string }[] = [
        { due_on: date },
        { due_to: addDays(date, -1) },
      ];
      if (date < today) ranges.push({ due_from: addDays(date, 1), due_to: today });
      for (const status of ASSIGNABLE) {
        for (const [i, range] of ranges.entries()) {
          const list = await allOrders(client, { status, ...range }, 10);
          all.push(...(i === 0 ? list : list.filter((o) => o.requested_day === null)));
        }
      }
      setOrders(all);
      remember(all);
    } catch (e) {
      setLoadError(e);
    }
  }, [client, remember, date, tz]);
  // One read at a time (the stream's first open, then order events): shared/serial.ts.
  const loadOrders = useSerial(readOrders);

  const loadDepots = useCallback(async () => {
    const list = await allDepots(client);
    setDepots(list);
    setDepotId((cur) => (cur && list.some((d) => d.id === cur) ? cur : (list[0]?.id ?? '')));
    return list;
  }, [client, setDepotId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: once per mount
  useEffect(() => {
    (async () => {
      try {
        await loadDepots();
        const cs = await allCouriers(client);
        setCouriers(cs.filter((c) => c.status === 'active'));
        setRoster(cs.map((c) => ({ id: c.id })));
      } catch (e) {
        setLoadError(e);
      }
    })();
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the orders of the date picked
  useEffect(() => {
    void loadOrders();
  }, [date]);

  return { depots, couriers, roster, orders, known, loadError, setLoadError, remember, loadOrders, loadDepots };
}

/**
 * Following a running plan: a poll of GET /v1/route_plans/{id} every second (the stream may be
 * missing or late), and the handler for the stream's `route_plan` messages, which the page passes
 * to its one useLive: the progress bar moves at once, and the plan's end reads the plan.
 */
export function useFollowPlan(
  planId: string | undefined,
  isRunning: boolean,
  client: Session['client'],
  setPlan: Dispatch<SetStateAction<RoutePlan | null>>,
  setLoadError: Dispatch<SetStateAction<unknown>>,
): NonNullable<LiveHandlers['routePlan']> {
  const refresh = useCallback(async () => {
    if (!planId) return;
    try {
      const p = await unwrap(client.GET('/v1/route_plans/{id}', { params: { path: { id: planId } } }));
      setPlan((cur) => (cur === null || cur.id === planId ? p : cur));
    } catch (e) {
      setLoadError(e);
    }
  }, [planId, client, setPlan, setLoadError]);
  useEffect(() => {
    if (!planId || !isRunning) return;
    const timer = setInterval(() => void refresh(), 1000);
    return () => clearInterval(timer);
  }, [planId, isRunning, refresh]);
  return useCallback(
    (m) => {
      if (!planId || !isRunning || m.id !== planId) return;
      if (m.status === 'succeeded' || m.status === 'failed') void refresh();
      else if (typeof m.progress === 'number') {
        const progress = m.progress;
        const status = (m.status ?? 'running') as RoutePlan['status'];
        setPlan((p) => (p && p.id === planId && running(p) ? { ...p, status, progress } : p));
      }
    },
    [planId, isRunning, refresh, setPlan],
  );
}

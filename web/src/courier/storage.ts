import type { Order } from '../shared/api';
import type { CourierMe } from './client';
import type { CourierCash } from './hooks/useCash';

const ME = 'ruta.courier.me';
const STOPS = 'ruta.courier.stops';
const DUTY = 'ruta.courier.duty';
const CASH = 'ruta.courier.cash';

/** The courier's cash as last read, and when (ms since the epoch). */
export interface SavedCash {
  data: CourierCash;
  at: number;
}
const DONE = 'ruta.courier.done';

/** Who is signed in on this phone, remembered so that the app opens offline. */
export function savedMe(): CourierMe | null {
  try {
    return JSON.parse(localStorage.getItem(ME) ?? 'null') as CourierMe | null;
  } catch {
    return null;
  }
}

export function saveMe(me: CourierMe | null): void {
  if (me) localStorage.setItem(ME, JSON.stringify(me));
  else {
    localStorage.removeItem(ME);
    localStorage.removeItem(STOPS);
    localStorage.removeItem(CASH);
    localStorage.removeItem(DONE);
  }
}

export function savedStops(): Order[] {
  try {
    return JSON.parse(localStorage.getItem(STOPS) ?? '[]') as Order[];
  } catch {
    return [];
  }
}

export function saveStops(stops: Order[]): void {
  localStorage.setItem(STOPS, JSON.stringify(stops));
}

export const savedDuty = () => localStorage.getItem(DUTY) === '1';
export const saveDuty = (on: boolean) => localStorage.setItem(DUTY, on ? '1' : '0');

export function savedCash(): SavedCash | null {
  try {
    return JSON.parse(localStorage.getItem(CASH) ?? 'null') as SavedCash | null;
  } catch {
    return null;
  }
}

export const saveCash = (c: SavedCash) => localStorage.setItem(CASH, JSON.stringify(c));
/**
 * A stop the courier finished today, to look back at: the API no longer lists it among the orders.
 * As the server answered GET /v1/couriers/{id}/done_today, kept so that the app opens offline.
 */
export interface DoneStop {
  id: string;
  name: string;
  /** The district, else the city: a finished stop shows no street. */
  address: string;
  status: string;
  /** When it was finished (ms). */
  at: number;
}

/** The phone's calendar day: a list kept from another day is not today's. */
const today = (now = Date.now()) => new Date(now).toLocaleDateString('en-CA');

export function savedDone(now = Date.now()): DoneStop[] {
  try {
    const v = JSON.parse(localStorage.getItem(DONE) ?? 'null') as { day: string; stops: DoneStop[] } | null;
    return v && v.day === today(now) ? v.stops : [];
  } catch {
    return [];
  }
}

export function saveDone(stops: DoneStop[], now = Date.now()): void {
  localStorage.setItem(DONE, JSON.stringify({ day: today(now), stops }));
}

/** Created by 002_lifecycle: a ring of the last N pings per courier, slot = ping_count mod N. */
export interface CourierLocationsTable {
  courier_id: string;
  slot: number;
  seq: number;
  lat: number;
  lng: number;
  recorded_at: number;
}

/** Created by 006_people: a phone signed in as a courier (cookie `ruta_courier_session`). */
export interface CourierSessionsTable {
  id: string;
  courier_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
}

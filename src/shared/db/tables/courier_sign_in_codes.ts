/** Created by 006_people: single-use codes that sign a phone in as a courier. */
export interface CourierSignInCodesTable {
  id: string;
  courier_id: string;
  code_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

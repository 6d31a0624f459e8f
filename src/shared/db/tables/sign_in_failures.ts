/** Created by 006_people: one row per failed sign-in or courier code, per bucket (`email:…`, `ip:…`, `code-ip:…`). */
export interface SignInFailuresTable {
  bucket: string;
  at: number;
}

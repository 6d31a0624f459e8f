/** Column value types shared by several tables. */

/** Test and live data never mix: every merchant-owned row carries its mode. */
export type Mode = 'test' | 'live';
export type Role = 'merchant' | 'operator';

/**
 * The currencies an account, a cash handover or a setting may name: ISO 4217 List One (2025),
 * codes of money people hold, so without the fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI,
 * UYW), the metals (XAG, XAU, XPD, XPT), the accounting units (XBA–XBD, XDR, XSU, XUA) and the
 * codes for tests and for "no currency" (XTS, XXX). Codes kept in List One while a new one takes
 * over stay (ANG beside XCG, SLL beside SLE, VEF is gone, VED and VES both are).
 *
 * A fixed list rather than `Intl.supportedValuesOf('currency')`: that one is ICU's, which differs
 * between Node releases (Node 20's still has HRK, retired in 2023, and XDR and XSU), so the same
 * request would pass on one runtime and fail on another.
 */
export const CURRENCIES: ReadonlySet<string> = new Set(
  `AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN
  BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL
  GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW
  KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN
  NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK
  SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU
  UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL`.split(/\s+/),
);

/** An ISO 4217 code Ruta takes (uppercase, as ISO writes them). */
export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}

/**
 * Card-acceptor names as real feeds carry them: punctuation, quotes, non-ASCII, and text that
 * a spreadsheet would take for a formula. Reports must survive every one of them.
 */
export const MERCHANT_NAMES: readonly string[] = [
  'AMAZON MKTPLACE PMTS',
  'UBER *TRIP',
  'Starbucks Coffee #1234',
  'SHELL OIL 57442',
  'Delta Air Lines',
  'Marriott, Downtown',
  'Joe\'s "Famous" Pizza',
  'Café Zürich',
  'München Hauptbahnhof',
  'スターバックス 渋谷',
  'Señor Taco, Inc.',
  '=HYPERLINK("http://example.invalid","click")',
  '+1 800 FLOWERS',
  '-MINUS MARKET-',
  '@home Furnishings',
  'Line\nBreak Deli',
  'Tab\tSeparated Goods',
  'GOOGLE *CLOUD',
  'APPLE.COM/BILL',
  'Tesco Stores 2041',
  'Łódź Kiosk',
  'Ørsted Energi',
  'Smith & Wesson; Ltd',
  "O'Reilly Auto Parts",
];

/** Names of service fees the issuer charges outside orders. */
export const SERVICE_FEE_NAMES: readonly string[] = [
  'Monthly card fee',
  'FX conversion fee',
  'Decline fee',
];

/**
 * English names and numbers from ICU, each formatter made on its first use: constructing any Intl object
 * maps about 7 MB of ICU data into the process, which a server that has not yet been asked for a country's
 * name or a formatted count need not hold (measured: bare Node 41 MB, 48 MB after one `new Intl.*`).
 */
let regions: Intl.DisplayNames | undefined;
let numbers: Intl.NumberFormat | undefined;

/** A region's English name ("FR" → "France"); ICU answers the code itself for a code it does not know. */
export function regionName(code: string): string | undefined {
  regions ??= new Intl.DisplayNames(['en'], { type: 'region' });
  return regions.of(code);
}

/** A count with thousands separators, as English writes it ("12,345"). */
export function formatCount(value: number): string {
  numbers ??= new Intl.NumberFormat('en');
  return numbers.format(value);
}

// Go's time.ParseDuration grammar is part of our contract (ban_duration, duration settings), and the npm parsers
// accept more than Go does (days, spaces, bare numbers), so this small parser is ours.

const NANOS_PER_UNIT: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NANOS = 2n ** 63n - 1n;
const COMPONENT = /^(\d*)(?:\.(\d*))?([^\d.]+)/;

/**
 * Parses a Go duration ("300ms", "-1.5h", "1h30m", "0") into milliseconds; null when the text is not one, or
 * does not fit Go's int64 nanoseconds.
 */
export function parseGoDuration(text: string): number | null {
  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return null;

  let nanos = 0n;
  while (rest !== "") {
    const match = COMPONENT.exec(rest);
    if (!match) return null;
    const [whole, integer = "", fraction = "", unit = ""] = match;
    if (integer === "" && fraction === "") return null;
    const perUnit = NANOS_PER_UNIT[unit];
    if (perUnit === undefined) return null;
    nanos += BigInt(integer || "0") * perUnit;
    if (fraction !== "") nanos += (BigInt(fraction) * perUnit) / 10n ** BigInt(fraction.length);
    if (nanos > MAX_NANOS) return null;
    rest = rest.slice(whole.length);
  }
  const millis = Number(nanos) / 1e6;
  return negative ? -millis : millis;
}

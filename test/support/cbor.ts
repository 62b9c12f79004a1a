// The part of CBOR (RFC 8949) a WebAuthn authenticator writes: integers, byte and text strings, arrays and maps,
// each in its shortest form, and map keys in CTAP2's canonical order. Servers decode the credential key and
// re-encode it to find where it ends, so anything but the shortest form would not survive.

export type CborKey = number | string;
export type CborValue = number | string | Uint8Array | readonly CborValue[] | ReadonlyMap<CborKey, CborValue>;

const UNSIGNED = 0;
const NEGATIVE = 1;
const BYTES = 2;
const TEXT = 3;
const ARRAY = 4;
const MAP = 5;

/** A major type's head: the type and its argument (a length, or the integer itself) in the fewest bytes. */
function head(major: number, argument: number): Uint8Array {
  if (!Number.isSafeInteger(argument) || argument < 0) throw new RangeError(`CBOR: no argument ${argument}`);
  const type = major << 5;
  if (argument < 24) return Uint8Array.of(type | argument);
  if (argument < 0x100) return Uint8Array.of(type | 24, argument);
  const size = argument < 0x10000 ? 2 : argument < 0x1_0000_0000 ? 4 : 8;
  const bytes = new Uint8Array(1 + size);
  const view = new DataView(bytes.buffer);
  bytes[0] = type | { 2: 25, 4: 26, 8: 27 }[size]!;
  if (size === 2) view.setUint16(1, argument);
  else if (size === 4) view.setUint32(1, argument);
  else view.setBigUint64(1, BigInt(argument));
  return bytes;
}

const concat = (parts: readonly Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** CTAP2 canonical order: by major type, then shorter encodings first, then bytewise. */
function canonically(a: Uint8Array, b: Uint8Array): number {
  if (a[0]! >> 5 !== b[0]! >> 5) return (a[0]! >> 5) - (b[0]! >> 5);
  if (a.length !== b.length) return a.length - b.length;
  return Buffer.compare(a, b);
}

function encodeMap(map: ReadonlyMap<CborKey, CborValue>): Uint8Array {
  const entries = [...map].map(([key, value]) => [encodeCbor(key), encodeCbor(value)] as const);
  entries.sort(([a], [b]) => canonically(a, b));
  return concat([head(MAP, entries.length), ...entries.flat()]);
}

export function encodeCbor(value: CborValue): Uint8Array {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`CBOR: only integers, not ${value}`);
    return value >= 0 ? head(UNSIGNED, value) : head(NEGATIVE, -1 - value);
  }
  if (typeof value === "string") {
    const utf8 = new TextEncoder().encode(value);
    return concat([head(TEXT, utf8.length), utf8]);
  }
  if (value instanceof Uint8Array) return concat([head(BYTES, value.length), value]);
  if (value instanceof Map) return encodeMap(value);
  const items = value as readonly CborValue[];
  return concat([head(ARRAY, items.length), ...items.map(encodeCbor)]);
}

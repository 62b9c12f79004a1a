const SHA1_HEX = /^[0-9A-F]{40}$/i;

/**
 * A bloom filter of SHA-1 digests, written here rather than taken from a package because its keys make it small:
 * a SHA-1 digest is already uniformly distributed, so the k bit positions of a key come straight from two 32-bit
 * slices of it by double hashing (Kirsch–Mitzenmacher: h1 + i·h2 mod m), with no hash function to run and no
 * dependency to trust. The slices are the digest's last 16 hex digits: its first 5 are shared by a whole range,
 * whose suffixes come in together. h2 is made odd, so it is never 0 (which would give a key a single position).
 *
 * Sized as usual for `items` keys at the false-positive rate `falsePositives`: m = ceil(-n·ln p / (ln 2)²) bits,
 * k = max(1, round(m/n · ln 2)) positions per key. It only grows fuller: `clear` empties it.
 */
export class BloomFilter {
  /** m, the number of bits. */
  readonly bits: number;
  /** k, the number of bits a key sets. */
  readonly hashes: number;
  private readonly bytes: Uint8Array;

  constructor(items: number, falsePositives: number) {
    if (!Number.isInteger(items) || items < 1) throw new RangeError("a bloom filter holds at least 1 item");
    if (!(falsePositives > 0 && falsePositives < 1)) {
      throw new RangeError("a bloom filter's false-positive rate is between 0 and 1");
    }
    this.bits = Math.ceil((-items * Math.log(falsePositives)) / Math.LN2 ** 2);
    this.hashes = Math.max(1, Math.round((this.bits / items) * Math.LN2));
    this.bytes = new Uint8Array(Math.ceil(this.bits / 8));
  }

  /** Adds a SHA-1 digest, 40 hex digits in either case. */
  add(sha1Hex: string): void {
    for (const bit of this.positions(sha1Hex)) this.bytes[Math.floor(bit / 8)]! |= 1 << (bit % 8);
  }

  /** Whether the digest may have been added: never false for one that was, rarely true for one that was not. */
  has(sha1Hex: string): boolean {
    for (const bit of this.positions(sha1Hex)) {
      if ((this.bytes[Math.floor(bit / 8)]! & (1 << (bit % 8))) === 0) return false;
    }
    return true;
  }

  clear(): void {
    this.bytes.fill(0);
  }

  private *positions(sha1Hex: string): Generator<number> {
    if (!SHA1_HEX.test(sha1Hex)) throw new TypeError("a bloom filter key is a SHA-1 digest in hex");
    const h1 = Number.parseInt(sha1Hex.slice(24, 32), 16);
    const h2 = (Number.parseInt(sha1Hex.slice(32, 40), 16) | 1) >>> 0;
    // h1 + i·h2 stays far below 2^53 for any k, so plain numbers are exact.
    for (let i = 0; i < this.hashes; i++) yield (h1 + i * h2) % this.bits;
  }
}

import { customType } from "drizzle-orm/pg-core";

/**
 * A `bytea` column, read and written as bytes. Written as a Buffer, which node-postgres sends as bytes (a plain
 * Uint8Array it would send as json); read as node-postgres' Buffer or PGlite's Uint8Array, both Uint8Arrays.
 */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
  toDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
  fromDriver: (value) => value,
});

import { timestamp } from "drizzle-orm/pg-core";

/** A `timestamptz` column read and written as a Date: PostgreSQL keeps microseconds, so milliseconds round-trip. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

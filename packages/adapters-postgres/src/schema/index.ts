export { createSchema, type Schema, tablesOf } from "./create-schema.ts";

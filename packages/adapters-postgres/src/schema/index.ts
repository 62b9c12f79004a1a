export { createSchema, type Schema, tablesOf } from "./create-schema.ts";
export type { AmrJson } from "./sessions.ts";

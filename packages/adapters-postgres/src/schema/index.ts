export { createSchema, tablesOf, type Schema } from "./create-schema.ts";
export type { AmrJson } from "./sessions.ts";

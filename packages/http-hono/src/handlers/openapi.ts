import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { openApiDocument, type RouteEntry } from "../openapi/document.ts";

/** GET /openapi.json: the API's description, made from the route table once it is complete, on the first request. */
export const openApi = (table: readonly RouteEntry[], version: string): Handler<AppEnv> => {
  let document: object | undefined;
  return (c) => {
    document ??= openApiDocument(table, { version });
    return c.json(document);
  };
};

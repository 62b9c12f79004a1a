import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentSettings } from "../present/settings.ts";
import type { RouteDeps } from "./route-deps.ts";

/** Liveness and the public settings: no database, no authentication. */
export const healthRoutes = ({ settings, version }: RouteDeps) =>
  new Hono<AppEnv>()
    .get("/health", (c) =>
      c.json({ version, name: "Latchkey", description: "Latchkey is a user registration and authentication API compatible with Supabase Auth" }),
    )
    .get("/settings", (c) => c.json(presentSettings(settings)));

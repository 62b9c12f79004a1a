import type { Auth } from "@latchkey/domain";
import type { PublicSettings } from "../present/settings.ts";
import type { ClientAddress } from "../request-context.ts";

export interface RouteDeps {
  readonly auth: Auth;
  readonly settings: PublicSettings;
  readonly clientAddress: ClientAddress;
  /** The build's version, reported by /health. */
  readonly version: string;
}

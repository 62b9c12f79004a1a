import { isUuid, type SamlRelayStateStore } from "@latchkey/domain";
import { eq } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";

/** SAML sign-ins sent to identity providers, each taken once at the ACS; the clean-up removes the abandoned. */
export function createSamlRelayStateStore(db: Database, schema: Schema): SamlRelayStateStore {
  const { samlRelayStates } = schema;
  return {
    async insert(state) {
      await db.insert(samlRelayStates).values({ ...state });
    },

    async take(id) {
      // The RelayState comes back from the IdP: one that is no uuid names no state (and would be a type error).
      if (!isUuid(id)) return null;
      // Removes and returns in one statement: of two answers with the same RelayState, one gets the state.
      const [row] = await db.delete(samlRelayStates).where(eq(samlRelayStates.id, id)).returning();
      return row ? { ...row } : null;
    },
  };
}

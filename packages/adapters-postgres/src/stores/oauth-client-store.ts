import { isUuid, type OAuthClientStore } from "@latchkey/domain";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromOAuthClientRow, toOAuthClientRow } from "../rows/oauth-client-row.ts";
import type { Schema } from "../schema/create-schema.ts";

/** The OAuth server's clients (`<ns>oauth_clients`); a deletion stamps deleted_at, which every read filters on. */
export function createOAuthClientStore(db: Database, schema: Schema): OAuthClientStore {
  const { oauthClients: clients } = schema;
  return {
    async insert(client) {
      await db.insert(clients).values(toOAuthClientRow(client));
    },

    async find(clientId) {
      // Client ids come from requests; one that is no uuid names no client (and would be a type error).
      if (!isUuid(clientId)) return null;
      const [row] = await db
        .select()
        .from(clients)
        .where(and(eq(clients.id, clientId), isNull(clients.deletedAt)));
      return row ? fromOAuthClientRow(row) : null;
    },

    async list() {
      const rows = await db
        .select()
        .from(clients)
        .where(isNull(clients.deletedAt))
        .orderBy(desc(clients.createdAt), desc(clients.id));
      return rows.map(fromOAuthClientRow);
    },

    async update(client) {
      if (!isUuid(client.id)) return;
      // What a client is and when it came are fixed at registration.
      const { id: _id, clientType: _type, createdAt: _createdAt, ...written } = toOAuthClientRow(client);
      await db.update(clients).set(written).where(eq(clients.id, client.id));
    },
  };
}

import { beforeAll, describe, expect, it } from "vitest";
import type { OAuthClient } from "../../../model/oauth-client.ts";
import type { Stores } from "../../../ports/stores.ts";
import { anOAuthClient, digest, idsOf, type StoreContractHarness, t, uuid } from "./support.ts";

/** What an `OAuthClientStore` must do: clients kept exactly, listed newest first, deleted ones found by nothing. */
export function describeOAuthClientsContract(harness: StoreContractHarness): void {
  describe("OAuth clients", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    /** The clients the store lists, of those in `mine` only: the database is shared with other tests. */
    const listed = async (mine: readonly OAuthClient[]) => {
      const ids = new Set(idsOf(mine));
      return (await stores.oauthClients.list()).filter((client) => ids.has(client.id));
    };

    it("round-trips every field of a client, arrays and nulls included", async () => {
      const confidential = anOAuthClient({
        // What a list joined by commas, or an array literal, would not keep as it is.
        redirectUris: [
          "https://app.example.com/callback?scopes=a,b",
          'http://127.0.0.1:8080/"quoted"/{braced}\\back',
          "https://zoë.example/🔑",
        ],
        tokenEndpointAuthMethod: "client_secret_post",
        name: 'Zoë\'s "work" app',
        createdAt: t("20:00:00.250"),
        updatedAt: t("20:01:30.999"),
      });
      const publicClient = anOAuthClient({
        registrationType: "dynamic",
        clientType: "public",
        tokenEndpointAuthMethod: "none",
        secretDigest: null,
        // Text an array literal spells specially: an unquoted NULL is no string, nor is nothing.
        redirectUris: ["NULL", "", " spaced "],
        grantTypes: ["authorization_code"],
        name: null,
        uri: null,
        logoUri: null,
      });
      const bare = anOAuthClient({ redirectUris: [], grantTypes: [] });
      for (const client of [confidential, publicClient, bare]) await stores.oauthClients.insert(client);

      expect(await stores.oauthClients.find(confidential.id)).toEqual(confidential);
      expect(await stores.oauthClients.find(publicClient.id)).toEqual(publicClient);
      expect(await stores.oauthClients.find(bare.id)).toEqual(bare);
      expect(await listed([confidential, publicClient, bare])).toHaveLength(3);
    });

    it("finds nothing for an unknown id, nor for one that is no uuid, without throwing", async () => {
      await stores.oauthClients.insert(anOAuthClient());
      for (const id of [uuid(), "not-a-uuid", "", "'; drop table x; --"]) {
        expect(await stores.oauthClients.find(id)).toBeNull();
      }
    });

    it("neither finds nor lists a deleted client", async () => {
      const [deleted, kept] = [anOAuthClient({ deletedAt: t("20:30:00.125") }), anOAuthClient()];
      for (const client of [deleted, kept]) await stores.oauthClients.insert(client);

      expect(await stores.oauthClients.find(deleted.id)).toBeNull();
      expect(await stores.oauthClients.find(kept.id)).toEqual(kept);
      expect(await listed([deleted, kept])).toEqual([kept]);
    });

    it("lists clients newest first, ties broken by id, and leaves deleted ones out", async () => {
      // Of the two of 12:00, the greater id first.
      const tail = uuid().slice(8);
      const [greater, lesser] = ["ffffffff", "00000000"].map((head) => `${head}${tail}`);
      const oldest = anOAuthClient({ createdAt: t("09:00:00.000") });
      const newest = anOAuthClient({ createdAt: t("13:00:00.000") });
      const tiedGreater = anOAuthClient({ id: greater!, createdAt: t("12:00:00.000") });
      const tiedLesser = anOAuthClient({ id: lesser!, createdAt: t("12:00:00.000") });
      const deleted = anOAuthClient({ createdAt: t("14:00:00.000"), deletedAt: t("14:00:00.000") });
      // Written in no order the list has.
      const written = [tiedLesser, oldest, deleted, newest, tiedGreater];
      for (const client of written) await stores.oauthClients.insert(client);

      expect(await listed(written)).toEqual([newest, tiedGreater, tiedLesser, oldest]);
    });

    it("writes every field on update but the id, the type and the time of registration", async () => {
      const client = anOAuthClient();
      const sibling = anOAuthClient();
      for (const each of [client, sibling]) await stores.oauthClients.insert(each);
      const kept = { id: client.id, clientType: client.clientType, createdAt: client.createdAt };

      const changed = anOAuthClient({
        ...kept,
        registrationType: "dynamic",
        tokenEndpointAuthMethod: "client_secret_post",
        secretDigest: digest(),
        redirectUris: ["https://new.example.com/a", "https://new.example.com/b"],
        grantTypes: ["authorization_code"],
        name: "Renamed",
        uri: "https://new.example.com",
        logoUri: "https://new.example.com/logo.svg",
        updatedAt: t("20:05:00.500"),
      });
      // A type and a registration time of its own, which the update must leave as they were.
      await stores.oauthClients.update({ ...changed, clientType: "public", createdAt: t("01:00:00.000") });
      expect(await stores.oauthClients.find(client.id)).toEqual(changed);

      const emptied = {
        ...changed,
        tokenEndpointAuthMethod: "none" as const,
        secretDigest: null,
        redirectUris: [],
        grantTypes: [],
        name: null,
        uri: null,
        logoUri: null,
        updatedAt: t("20:06:00.750"),
      };
      await stores.oauthClients.update(emptied);
      expect(await stores.oauthClients.find(client.id)).toEqual(emptied);
      const refilled = { ...changed, updatedAt: t("20:07:00.125") };
      await stores.oauthClients.update(refilled);
      expect(await stores.oauthClients.find(client.id)).toEqual(refilled);
      expect(await stores.oauthClients.find(sibling.id)).toEqual(sibling);
    });

    it("deletes a client by an update of its deletedAt, and creates none by the update of an unknown one", async () => {
      const [client, sibling, unknown] = [anOAuthClient(), anOAuthClient(), anOAuthClient()];
      for (const each of [client, sibling]) await stores.oauthClients.insert(each);

      await stores.oauthClients.update({ ...client, deletedAt: t("21:00:00.000"), updatedAt: t("21:00:00.000") });
      await stores.oauthClients.update(unknown);

      expect(await stores.oauthClients.find(client.id)).toBeNull();
      expect(await stores.oauthClients.find(unknown.id)).toBeNull();
      expect(await listed([client, sibling, unknown])).toEqual([sibling]);
    });
  });
}

import pg from "pg";

/** One connection of a test's own, outside any pool: to hold a lock or a transaction open, or to act as an operator. */
export interface DirectConnection {
  /** One statement (or, without params, a script); its rows. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  end(): Promise<void>;
}

/** Connects to `url` (TEST_DATABASE_URL, or a role's URL) with node-postgres, for packages that do not depend on it. */
export async function connectDirectly(url: string): Promise<DirectConnection> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    query: async <Row>(text: string, params?: readonly unknown[]) =>
      (await client.query(text, params === undefined ? undefined : [...params])).rows as Row[],
    end: () => client.end(),
  };
}

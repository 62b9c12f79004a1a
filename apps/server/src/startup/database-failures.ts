import { ForeignTablesError } from "@latchkey/adapters-postgres";

/** Where the database is, for messages: never the password. */
export interface DatabaseTarget {
  readonly host: string;
  readonly port: string;
  readonly database: string;
  readonly user: string;
}

/** DATABASE_URL's parts an operator recognises; the URL was validated by the configuration. */
export function databaseTarget(url: string): DatabaseTarget {
  const parsed = new URL(url);
  const param = (name: string) => parsed.searchParams.get(name) ?? undefined;
  return {
    host: param("host") ?? (parsed.hostname || "localhost"),
    port: param("port") ?? (parsed.port || "5432"),
    database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || "postgres",
    user: decodeURIComponent(parsed.username) || "postgres",
  };
}

/**
 * What went wrong reaching or preparing the database, as one line: what, where, what to do. `waitable` failures
 * (the database not up yet, as when containers start in any order) are worth retrying at start; the others are not.
 */
export interface DatabaseFailure {
  readonly line: string;
  readonly waitable: boolean;
}

// Node's socket errors when nothing answers at the address, or the name does not resolve (yet: a container's name
// resolves once it runs).
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** The failure in plain words, or undefined for one this does not know (the caller shows it whole). */
export function describeDatabaseFailure(
  error: unknown,
  target: DatabaseTarget,
  /** What the operator set the URL as: DATABASE_URL, or an import's --from. */
  url = "DATABASE_URL",
): DatabaseFailure | undefined {
  const at = `${target.host}:${target.port}`;
  for (const link of chainOf(error)) {
    if (link instanceof ForeignTablesError) return { line: foreignTables(link), waitable: false };
    const code = typeof link.code === "string" ? link.code : undefined;
    const message = typeof link.message === "string" ? link.message : "";
    if (code !== undefined && UNREACHABLE.has(code)) {
      const what = code === "ENOTFOUND" || code === "EAI_AGAIN" ? `host ${target.host} is not known` : code;
      return {
        line: `the database at ${at} cannot be reached (${what}); check that PostgreSQL runs there and ${url}'s host and port`,
        waitable: true,
      };
    }
    if (
      code === "57P03" ||
      code === "53300" ||
      /^Connection terminated|^timeout exceeded when trying to connect/.test(message)
    ) {
      return { line: `the database at ${at} does not accept connections yet (${message})`, waitable: true };
    }
    if (code === "3D000") {
      return {
        line: `database "${target.database}" does not exist on ${at}; create it (createdb -h ${target.host} -p ${target.port} ${target.database}) or fix ${url}'s database name`,
        waitable: false,
      };
    }
    if (code === "28P01") {
      return {
        line: `PostgreSQL at ${at} refused user "${target.user}": wrong password; check ${url}'s user and password`,
        waitable: false,
      };
    }
    if (code === "28000") {
      return {
        line: `PostgreSQL at ${at} refused user "${target.user}" (${message}); check ${url}'s user, and that the server lets it connect to "${target.database}"`,
        waitable: false,
      };
    }
    if (code === "42501") {
      return {
        line: `user "${target.user}" may not create Latchkey's tables in database "${target.database}" (${message}); run \`latchkey migrate\` as the database's owner, or grant it CREATE on the schema`,
        waitable: false,
      };
    }
    if (/does not support SSL|SSL/.test(message) && code === undefined) {
      return {
        line: `the database at ${at} and ${url} disagree on TLS (${message}); set or remove sslmode in ${url}`,
        waitable: false,
      };
    }
  }
  return undefined;
}

function foreignTables(error: ForeignTablesError): string {
  const whose = error.supabaseAuth ? "Supabase Auth's tables" : "tables of another program";
  const importer = error.supabaseAuth
    ? "; to bring Supabase Auth's users into Latchkey's tables, `latchkey import gotrue --from <this database>`"
    : "";
  return `schema "${error.schema}" already holds ${whose} with the names Latchkey's would have (${error.tables.join(", ")}); set DB_NAMESPACE (for example DB_NAMESPACE=latchkey_) to give Latchkey's tables names of their own, or point DATABASE_URL at another database${importer}`;
}

/** The error, its causes and, for an AggregateError (every address of a host refused), the first it holds. */
function chainOf(error: unknown): Array<{ code?: unknown; message?: unknown }> {
  const chain: Array<{ code?: unknown; message?: unknown }> = [];
  let link = error;
  for (let depth = 0; depth < 5 && typeof link === "object" && link !== null; depth++) {
    chain.push(link as { code?: unknown; message?: unknown });
    const errors = (link as { errors?: unknown }).errors;
    link = Array.isArray(errors) && errors.length > 0 ? errors[0] : (link as { cause?: unknown }).cause;
  }
  return chain;
}

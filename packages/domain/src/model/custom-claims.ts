import { AuthError } from "../errors.ts";

// GoTrue's "minimum viable token" schema for what the custom_access_token hook answers: the claims it requires,
// and the types of those it knows. A table, checked by hand: the domain imports no library, and the schema is
// GoTrue's fixed list, not a JSON Schema of the operator's.

type JsonType = "string" | "integer" | "object" | "array" | "boolean";

const REQUIRED = ["aud", "exp", "iat", "sub", "email", "phone", "role", "aal", "session_id", "is_anonymous"] as const;

const TYPES: Readonly<Record<string, readonly JsonType[]>> = {
  aud: ["string", "array"],
  exp: ["integer"],
  jti: ["string"],
  iat: ["integer"],
  iss: ["string"],
  nbf: ["integer"],
  sub: ["string"],
  email: ["string"],
  phone: ["string"],
  app_metadata: ["object"],
  user_metadata: ["object"],
  role: ["string"],
  aal: ["string"],
  amr: ["array"],
  session_id: ["string"],
  client_id: ["string"],
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** What is wrong with `claims`, one line each, in the words of GoTrue's schema check; empty when nothing is. */
function customClaimsProblems(claims: unknown): string[] {
  if (typeOf(claims) !== "object") return [`(root): Invalid type. Expected: object, given: ${typeOf(claims)}`];
  const record = claims as Readonly<Record<string, unknown>>;
  const problems: string[] = REQUIRED.filter((name) => !(name in record)).map((name) => `(root): ${name} is required`);
  for (const [name, allowed] of Object.entries(TYPES)) {
    if (!(name in record)) continue;
    const given = typeOf(record[name]);
    if (!allowed.includes(given as JsonType)) {
      problems.push(`${name}: Invalid type. Expected: ${allowed.join("/")}, given: ${given}`);
    }
  }
  const amr = record["amr"];
  if (Array.isArray(amr)) {
    amr.forEach((entry, index) => {
      if (!["string", "object"].includes(typeOf(entry))) {
        problems.push(`amr.${index}: Must validate at least one schema (anyOf)`);
      }
    });
  }
  return problems;
}

/** The hook's claims when they pass GoTrue's schema; else the error GoTrue fails the request with. */
export function checkedCustomClaims(claims: unknown): Readonly<Record<string, unknown>> {
  const problems = customClaimsProblems(claims);
  if (problems.length === 0) return claims as Readonly<Record<string, unknown>>;
  const listed = problems.map((problem) => `- ${problem}\n`).join("");
  return fail(`output claims do not conform to the expected schema: \n${listed}`);
}

function fail(message: string): never {
  throw new AuthError("unexpected_failure", message);
}

import * as v from "valibot";

/** JSON null reads as absent, as Go decodes it into a zero value. */
const absentIfNull = <S extends v.GenericSchema>(schema: S) =>
  v.optional(v.pipe(v.nullable(schema), v.transform((value) => value ?? undefined)));

const text = absentIfNull(v.string());

const MAX_METADATA_DEPTH = 32;

/** Walks level by level, never recursing, so hostile nesting cannot exhaust the stack. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; ; depth++) {
    const objects = level.filter((item): item is object => item !== null && typeof item === "object");
    if (objects.length === 0) return false;
    if (depth >= limit) return true;
    level = objects.flatMap((item) => Object.values(item));
  }
}

/** A JSON object of the caller's own data, nested no deeper than storage and clients handle comfortably. */
export const metadata = absentIfNull(
  v.pipe(
    v.record(v.string(), v.unknown()),
    v.check((value) => !nestedDeeperThan(value, MAX_METADATA_DEPTH), `must not be nested more than ${MAX_METADATA_DEPTH} levels deep`),
  ),
);

/** What auth-js wraps a captcha token in. */
const security = absentIfNull(v.object({ captcha_token: text }));

export const SignupBody = v.object({
  email: text,
  phone: text,
  password: text,
  data: metadata,
  channel: text,
  code_challenge: text,
  code_challenge_method: text,
  gotrue_meta_security: security,
});

export const PasswordGrantBody = v.object({
  email: text,
  phone: text,
  password: text,
  gotrue_meta_security: security,
});

export const RefreshGrantBody = v.object({ refresh_token: text });

export const UpdateUserBody = v.object({
  email: text,
  phone: text,
  password: text,
  data: metadata,
  nonce: text,
  channel: text,
  code_challenge: text,
  code_challenge_method: text,
});

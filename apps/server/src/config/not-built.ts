import { DECLARED_NAMES } from "./env-names.ts";
import { parseGoBool } from "./env-values.ts";

/**
 * Settings of features Latchkey does not have yet, by the name without a prefix, and the feature each belongs to.
 * A setting exists when its feature does: until then, one of these set under AUTH_ or GOTRUE_ stops the start,
 * rather than being accepted and ignored. A switch set to false asks for nothing, and passes.
 */
const NOT_BUILT: readonly { readonly name: RegExp; readonly feature: string; readonly why?: string }[] = [
  { name: /^EXTERNAL_/, feature: "This OAuth provider or setting" },
  { name: /^JWT_ADMIN_GROUP_NAME$/, feature: "Editing app_metadata through PUT /user" },
  { name: /^MFA_/, feature: "This MFA setting" },
  // Supabase Auth reads it, but nothing there gives a session a tag, so every session has the first one and the
  // setting changes nothing (docs/compatibility.md, "Tokens and sessions").
  {
    name: /^SESSIONS_TAGS$/,
    feature: "Session tags",
    why: "has no effect in Supabase Auth (no session is ever given a tag), and Latchkey does not take it",
  },
];

/** Whether a setting's bare name belongs to a feature not built (and is refused when set). */
export function isNotBuilt(bare: string): boolean {
  return NOT_BUILT.some((entry) => entry.name.test(bare));
}

/**
 * One problem for each variable of `sources` that sets a setting of a feature not built, under its AUTH_ or
 * GOTRUE_ name. Unprefixed names (OTEL_SERVICE_NAME, say) may be meant for other programs: they are left alone.
 */
export function notBuiltProblems(sources: readonly Readonly<Record<string, string>>[]): string[] {
  const problems = new Map<string, string>();
  for (const variables of sources) {
    for (const [name, value] of Object.entries(variables)) {
      const bare = /^(AUTH|GOTRUE)_(.+)$/.exec(name)?.[2];
      if (bare === undefined || problems.has(name) || DECLARED_NAMES.has(bare)) continue;
      const entry = NOT_BUILT.find((each) => each.name.test(bare));
      if (entry === undefined) continue;
      const isSwitch = bare.endsWith("_ENABLED");
      if (isSwitch && parseGoBool(value) === false) continue;
      const advice = isSwitch ? "remove this variable or set it to false" : "remove this variable";
      problems.set(name, `${name}: ${entry.feature} ${entry.why ?? "is not built in Latchkey yet"}; ${advice}`);
    }
  }
  return [...problems.values()];
}

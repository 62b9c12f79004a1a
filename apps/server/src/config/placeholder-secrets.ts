/**
 * Secrets that are not secret: the example values of our own docs and of Supabase's (a deployment moving over
 * often still has its docker example's), and values that are evidently placeholders. Whoever has read the same
 * page can sign a service_role token with one, so the production profile refuses them (checks.ts).
 */
const PUBLISHED_EXAMPLES: ReadonlyMap<string, string> = new Map([
  ["change-me-to-at-least-32-random-characters", "the example value of Latchkey's .env.example"],
  ["your-super-secret-jwt-token-with-at-least-32-characters-long", "the example value of Supabase's docker setup"],
  ["super-secret-jwt-token-with-at-least-32-characters-long", "the Supabase CLI's local development secret"],
]);

/** Words that a generated secret does not contain, and a value meant to be replaced does. */
const PLACEHOLDER_WORDS = /change[-_ ]?me|your[-_ ]|placeholder|replace[-_ ]?(me|this|with)|example|x{5,}|<[^>]*>/i;

/** A generated secret of 32 characters or more has many more distinct characters than this (`aaaa…`, `1234…`). */
const MIN_DISTINCT_CHARACTERS = 8;

/** Why `value` is a placeholder rather than a secret, or undefined when nothing says so. */
export function placeholderReason(value: string): string | undefined {
  const published = PUBLISHED_EXAMPLES.get(value.trim().toLowerCase());
  if (published !== undefined) return `is ${published}, which anyone can read`;
  if (PLACEHOLDER_WORDS.test(value)) return "is a placeholder, not a secret";
  if (new Set(value).size < MIN_DISTINCT_CHARACTERS) return "is not random: it has too few different characters";
  return undefined;
}

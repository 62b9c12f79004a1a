const HEADER = "x-supabase-api-version";
const FIRST_VERSIONED = "2024-01-01";
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Whether the caller asked for 2024-01-01 error bodies. Dates are compared as strings, which works for
 * zero-padded ISO dates; anything unparseable falls back to the legacy shape, as in GoTrue.
 */
export function wantsVersion2024(header: string | undefined): boolean {
  if (header === undefined || !DATE.test(header) || Number.isNaN(Date.parse(header))) return false;
  return header >= FIRST_VERSIONED;
}

export const apiVersionHeader = { name: HEADER, v2024: FIRST_VERSIONED } as const;

const NAMESPACE = /^[A-Za-z_][A-Za-z0-9_]*$/;

// PostgreSQL truncates identifiers to 63 bytes, which would make two names collide silently. The longest name we
// derive is 35 characters long (`one_time_tokens_link_token_hash_idx`); the drift test checks this bound.
export const MAX_NAMESPACE_LENGTH = 28;

/** Returns the namespace when it is empty or a plain SQL identifier that fits; throws otherwise. */
export function validateNamespace(namespace: string): string {
  if (namespace === "") return namespace;
  if (!NAMESPACE.test(namespace)) {
    throw new Error(
      `DB_NAMESPACE must match ${NAMESPACE.source} (letters, digits, underscores): ${JSON.stringify(namespace)}`,
    );
  }
  if (namespace.length > MAX_NAMESPACE_LENGTH) {
    throw new Error(
      `DB_NAMESPACE must be at most ${MAX_NAMESPACE_LENGTH} characters long: ${JSON.stringify(namespace)}`,
    );
  }
  return namespace;
}

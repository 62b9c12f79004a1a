/** Throws at startup when a provider setting is empty, naming the variables (never their values). */
export function requireSettings(provider: string, settings: Readonly<Record<string, string | undefined>>): void {
  const missing = Object.entries(settings)
    .filter(([, value]) => value === undefined || value.trim() === "")
    .map(([name]) => name);
  if (missing.length > 0) throw new Error(`SMS provider ${provider} needs ${missing.join(", ")}`);
}

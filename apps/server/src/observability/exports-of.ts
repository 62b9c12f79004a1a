/**
 * A package's exports, however it was loaded. The SDK's packages are CommonJS: Node gives their named exports (and
 * the whole as the default), but the bundle's chunk of one, imported dynamically, has only the default. Named
 * exports win where there are any: the API's own default export is a small object of its own, not the whole.
 */
export async function exportsOf<T extends object>(loading: Promise<T>): Promise<T> {
  const loaded = (await loading) as T & { readonly default?: unknown };
  const named = Object.keys(loaded).some((key) => key !== "default");
  return !named && typeof loaded.default === "object" && loaded.default !== null ? (loaded.default as T) : loaded;
}

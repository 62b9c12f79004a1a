import type { Stores } from "@latchkey/domain";

/** Runs one call of a store method, given the stores to make it on. */
export type RunStoreCall = <T>(call: (stores: Stores) => Promise<T>) => Promise<T>;

type Methods = Record<string, (...args: unknown[]) => Promise<unknown>>;

/**
 * Makes Stores that hand each call of a method to `run`, which chooses the stores it is made on: how a request's
 * calls each go to a connection checked out by its deadline (create-stores.ts). One such Stores is made per request,
 * so the making is cheap: the methods live on prototypes built here once, from `template`'s method names, and a
 * request makes one object, then one per store it uses.
 */
export function scopedStoresOf(template: Stores): (run: RunStoreCall) => Stores {
  const storeTypes = Object.entries(template).map(([name, store]) => {
    class ScopedStore {
      constructor(readonly run: RunStoreCall) {}
    }
    for (const [method, member] of Object.entries(store as object)) {
      if (typeof member !== "function") throw new Error(`store ${name} has a member that is not a method: ${method}`);
      Object.defineProperty(ScopedStore.prototype, method, {
        value(this: ScopedStore, ...args: unknown[]) {
          return this.run((stores) => (stores[name as keyof Stores] as unknown as Methods)[method]!(...args));
        },
      });
    }
    return [name, ScopedStore] as const;
  });

  class ScopedStores {
    readonly made: Record<string, unknown> = {};
    constructor(readonly run: RunStoreCall) {}
  }
  for (const [name, ScopedStore] of storeTypes) {
    Object.defineProperty(ScopedStores.prototype, name, {
      enumerable: true,
      get(this: ScopedStores) {
        // biome-ignore lint/suspicious/noAssignInExpressions: made once per request, on first use
        return (this.made[name] ??= new ScopedStore(this.run));
      },
    });
  }
  return (run) => new ScopedStores(run) as unknown as Stores;
}

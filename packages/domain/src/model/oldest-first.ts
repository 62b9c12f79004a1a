/**
 * A user's identities or factors in the order the stores list them: oldest first, those made at the same instant
 * (an admin's new user with an email and a phone) in the order of their ids. A new array.
 */
export function oldestFirst<T extends { readonly createdAt: Date; readonly id: string }>(rows: readonly T[]): T[] {
  return [...rows].sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

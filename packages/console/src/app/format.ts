/** A timestamp of the API as the admin's locale writes it, or a dash for none. */
export function when(timestamp: string | null | undefined): string {
  if (!timestamp) return "—";
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleString();
}

/** Whether a ban is in force now. */
export const isBanned = (bannedUntil: string | null | undefined): boolean =>
  !!bannedUntil && new Date(bannedUntil).getTime() > Date.now();

export const yesNo = (value: boolean): string => (value ? "Yes" : "No");

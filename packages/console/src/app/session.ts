// The admin's token lives in this tab's session storage, and nowhere else: no cookie, so no other site can make
// the browser send it, and it is gone when the tab closes.
const TOKEN_KEY = "latchkey-console-token";

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  save: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

let signedOut: () => void = () => {};

/** What the app does when the API refuses the token (expired, revoked, not an admin's): back to sign-in. */
export function onSignedOut(listener: () => void): void {
  signedOut = listener;
}

export function endSession(): void {
  session.clear();
  signedOut();
}

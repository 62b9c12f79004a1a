// The admin's token lives in this tab's session storage, and nowhere else: no cookie, so no other site can make
// the browser send it, and it is gone when the tab closes. An account's sign-in keeps its refresh token beside it,
// so that the console goes on past the access token's expiry (JWT_EXP); a pasted key has none, and needs none.
const TOKEN_KEY = "latchkey-console-token";
const REFRESH_KEY = "latchkey-console-refresh";

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  refreshToken: (): string | null => sessionStorage.getItem(REFRESH_KEY),
  save: (token: string, refreshToken?: string): void => {
    sessionStorage.setItem(TOKEN_KEY, token);
    if (refreshToken === undefined) sessionStorage.removeItem(REFRESH_KEY);
    else sessionStorage.setItem(REFRESH_KEY, refreshToken);
  },
  clear: (): void => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(REFRESH_KEY);
  },
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

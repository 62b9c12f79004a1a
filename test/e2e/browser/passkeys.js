// The page's side of passkeys-browser.test.ts: an app on the official client, each step as an app takes it. The
// test calls the steps through page.evaluate and reads the virtual authenticator between them.
import { GoTrueClient } from "@supabase/auth-js";

let auth;

/** Throws the client's error with the step that met it, so the test's failure says where the flow broke. */
function dataOf(step, { data, error }) {
  if (error) throw new Error(`${step}: ${error.name} ${error.status ?? ""} ${error.code ?? ""} ${error.message}`);
  return data;
}

/** Signs up (confirmed at once, so with a session) and registers a passkey: navigator.credentials.create. */
async function signUpAndRegister(serverUrl, email, password) {
  // In this auth-js (2.119.1, from supabase-js) passkeys need no flag; 2.109.0 still wanted `experimental: { passkey:
  // true }`. The session lives in the page's localStorage, as in an app.
  auth = new GoTrueClient({
    url: serverUrl,
    storageKey: "latchkey-browser-test",
    autoRefreshToken: false,
    detectSessionInUrl: false,
    headers: { apikey: "anon-key-placeholder" },
  });
  const signedUp = dataOf("signUp", await auth.signUp({ email, password }));
  if (!signedUp.session) throw new Error("signUp: no session (is AUTH_MAILER_AUTOCONFIRM on?)");
  const passkey = dataOf("registerPasskey", await auth.registerPasskey());
  return { userId: signedUp.user.id, passkeyId: passkey.id };
}

/** Signs out, then in with the discoverable credential (navigator.credentials.get, no user named). */
async function signOutAndSignInWithPasskey() {
  dataOf("signOut", await auth.signOut());
  const before = dataOf("getSession", await auth.getSession());
  if (before.session) throw new Error("signOut: a session remained");
  const signedIn = dataOf("signInWithPasskey", await auth.signInWithPasskey());
  const user = dataOf("getUser", await auth.getUser()).user;
  const passkeys = dataOf("passkey.list", await auth.passkey.list());
  return { userId: user.id, sessionUserId: signedIn.user.id, accessToken: signedIn.session.access_token, passkeys };
}

globalThis.latchkeyPage = { signUpAndRegister, signOutAndSignInWithPasskey };

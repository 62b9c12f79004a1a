import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, call } from "../api.ts";
import { messageOf } from "../load.ts";
import { Notice } from "../parts/notice.tsx";
import { session } from "../session.ts";

/**
 * A token is kept only once the admin API has accepted it: what makes it an admin's is the API's own rule (a
 * `role` in JWT_ADMIN_ROLES), not anything the console decides.
 */
async function keepIfAdmin(token: string, refreshToken?: string): Promise<void> {
  try {
    await call("GET", "/admin/users?per_page=1", { token });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      throw new Error("This token has no admin access (its role is not one of JWT_ADMIN_ROLES).");
    }
    throw error;
  }
  session.save(token, refreshToken);
}

function KeyForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    await keepIfAdmin(key.trim()).then(onSignedIn, (failure: unknown) => setError(messageOf(failure)));
  };
  return (
    <form onSubmit={submit} class="card" aria-labelledby="key-heading">
      <h2 id="key-heading">With the service-role key</h2>
      <div class="field">
        <label for="service-key">Service-role key</label>
        <input
          id="service-key"
          type="password"
          autocomplete="off"
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <p class="hint">Kept in this tab only (session storage), never in a cookie.</p>
      </div>
      <button type="submit">Sign in with the key</button>
      {error && <Notice message={{ text: error, error: true }} />}
    </form>
  );
}

function PasswordForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const { data } = await call<{ access_token: string; refresh_token: string }>(
        "POST",
        "/token?grant_type=password",
        { body: { email, password }, token: "" },
      );
      await keepIfAdmin(data.access_token, data.refresh_token);
      onSignedIn();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <form onSubmit={submit} class="card" aria-labelledby="account-heading">
      <h2 id="account-heading">With an admin account</h2>
      <div class="field">
        <label for="admin-email">Email</label>
        <input
          id="admin-email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="admin-password">Password</label>
        <input
          id="admin-password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Sign in with the account</button>
      {error && <Notice message={{ text: error, error: true }} />}
    </form>
  );
}

export function SignIn({ onSignedIn, reason }: { onSignedIn: () => void; reason: string | undefined }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = "Sign in · Latchkey console";
    heading.current?.focus();
  }, []);
  return (
    <main id="main" class="sign-in">
      <h1 ref={heading} tabIndex={-1}>
        Latchkey console
      </h1>
      {reason && <Notice message={{ text: reason }} />}
      <div class="columns">
        <KeyForm onSignedIn={onSignedIn} />
        <PasswordForm onSignedIn={onSignedIn} />
      </div>
    </main>
  );
}

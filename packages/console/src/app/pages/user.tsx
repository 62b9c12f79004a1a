import { ApiError, get } from "../api.ts";
import { isBanned, when, yesNo } from "../format.ts";
import { useLoad } from "../load.ts";
import { Failed, Loading } from "../parts/notice.tsx";
import { UserActions } from "../parts/user-actions.tsx";
import { UserDelete } from "../parts/user-delete.tsx";
import { UserFactors, UserIdentities, UserPasskeys } from "../parts/user-lists.tsx";
import { UserMetadata } from "../parts/user-metadata.tsx";
import { UserSessions } from "../parts/user-sessions.tsx";
import type { Factor, Passkey, User } from "../types.ts";

/** An optional part of the API: its answer, or undefined where this server does not answer it. */
async function optional<T>(path: string): Promise<T | undefined> {
  try {
    return (await get<T>(path)).data;
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401 && error.status !== 403) return undefined;
    throw error;
  }
}

async function loadUser(id: string) {
  const path = `/admin/users/${encodeURIComponent(id)}`;
  const [user, factors, passkeys] = await Promise.all([
    get<User>(path).then((answer) => answer.data),
    optional<Factor[]>(`${path}/factors`),
    optional<Passkey[]>(`${path}/passkeys`),
  ]);
  return { user, factors: factors ?? user.factors ?? [], passkeys: passkeys ?? [] };
}

function Summary({ user }: { user: User }) {
  const rows: [string, string][] = [
    ["Id", user.id],
    ["Email", user.email || "—"],
    ["Phone", user.phone || "—"],
    ["Role", user.role || "—"],
    ["Created", when(user.created_at)],
    ["Last sign-in", when(user.last_sign_in_at)],
    ["Email confirmed", user.email_confirmed_at ? when(user.email_confirmed_at) : "No"],
    ["Phone confirmed", user.phone_confirmed_at ? when(user.phone_confirmed_at) : "No"],
    ["Banned", isBanned(user.banned_until) ? `Until ${when(user.banned_until)}` : "No"],
    ["Anonymous", yesNo(!!user.is_anonymous)],
  ];
  return (
    <dl class="summary">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function UserPage({ id }: { id: string }) {
  const loaded = useLoad(() => loadUser(id), id);
  if (loaded.error) return <Failed error={loaded.error} />;
  if (!loaded.data) return <Loading what="the user" />;
  const { user, factors, passkeys } = loaded.data;
  return (
    <>
      <p>
        <a href="#/users">Back to users</a>
      </p>
      <h2>{user.email || user.phone || user.id}</h2>
      <Summary user={user} />
      <UserActions user={user} onChanged={loaded.reload} />
      <UserIdentities user={user} />
      <UserFactors user={user} factors={factors} onChanged={loaded.reload} />
      <UserPasskeys user={user} passkeys={passkeys} onChanged={loaded.reload} />
      <UserSessions user={user} />
      <UserMetadata user={user} onChanged={loaded.reload} />
      <UserDelete user={user} />
    </>
  );
}

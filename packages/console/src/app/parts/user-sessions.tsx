import { ApiError, call, get } from "../api.ts";
import { when } from "../format.ts";
import { useLoad } from "../load.ts";
import type { Session, User } from "../types.ts";
import { Notice } from "./notice.tsx";
import { useAction } from "./use-action.ts";

/** A server without the sessions endpoints (an older Latchkey) answers 404: the section says so, and no more. */
const NOT_AVAILABLE = "Not available on this server.";

async function loadSessions(userId: string): Promise<readonly Session[] | undefined> {
  try {
    return (await get<{ sessions: Session[] }>(`/admin/users/${userId}/sessions`)).data.sessions;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return undefined;
    throw error;
  }
}

function SessionTable({ sessions }: { sessions: readonly Session[] }) {
  if (sessions.length === 0) return <p>No active sessions.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Last refreshed</th>
          <th scope="col">Ends</th>
          <th scope="col">Level</th>
          <th scope="col">Address</th>
          <th scope="col">Browser</th>
        </tr>
      </thead>
      <tbody>
        {sessions.map((session) => (
          <tr key={session.id}>
            <th scope="row">{when(session.created_at)}</th>
            <td>{when(session.refreshed_at ?? session.updated_at)}</td>
            <td>{when(session.not_after)}</td>
            <td>{session.aal ?? "—"}</td>
            <td>{session.ip || "—"}</td>
            <td class="wrap">{session.user_agent || "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function UserSessions({ user }: { user: User }) {
  const sessions = useLoad(() => loadSessions(user.id), user.id);
  const action = useAction();
  const signOutEverywhere = () =>
    action.run(async () => {
      try {
        await call("DELETE", `/admin/users/${user.id}/sessions`);
      } catch (error) {
        if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return NOT_AVAILABLE;
        throw error;
      }
      sessions.reload();
      return "Signed out everywhere: every session ended.";
    });
  return (
    <section aria-labelledby="sessions-heading">
      <h3 id="sessions-heading">Sessions</h3>
      {sessions.error && <Notice message={{ text: sessions.error, error: true }} />}
      {sessions.loading && !sessions.data && <p class="muted">Loading sessions…</p>}
      {!sessions.loading && !sessions.error && !sessions.data && <p>{NOT_AVAILABLE}</p>}
      {sessions.data && <SessionTable sessions={sessions.data} />}
      <button type="button" disabled={action.busy} onClick={signOutEverywhere}>
        Sign out everywhere
      </button>
      <Notice message={action.message} />
    </section>
  );
}

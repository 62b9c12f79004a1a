import { useState } from "preact/hooks";
import { get, query, totalOf } from "../api.ts";
import { isBanned, when, yesNo } from "../format.ts";
import { useLoad } from "../load.ts";
import { Failed, Loading } from "../parts/notice.tsx";
import { Pager } from "../parts/pager.tsx";
import { hrefOf } from "../route.ts";
import type { User } from "../types.ts";

const PER_PAGE = 20;

function UserRow({ user }: { user: User }) {
  const providers = user.app_metadata.providers ?? [];
  return (
    <tr>
      <th scope="row">
        <a href={hrefOf({ page: "user", id: user.id })}>{user.email || user.phone || user.id}</a>
      </th>
      <td>{user.phone || "—"}</td>
      <td>{providers.join(", ") || "—"}</td>
      <td>{when(user.created_at)}</td>
      <td>{when(user.last_sign_in_at)}</td>
      <td>{yesNo(!!(user.email_confirmed_at || user.phone_confirmed_at))}</td>
      <td>{isBanned(user.banned_until) ? `Until ${when(user.banned_until)}` : "No"}</td>
    </tr>
  );
}

function UserTable({ users }: { users: readonly User[] }) {
  if (users.length === 0) return <p>No users match.</p>;
  return (
    <table>
      <caption class="visually-hidden">Users</caption>
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Phone</th>
          <th scope="col">Providers</th>
          <th scope="col">Created</th>
          <th scope="col">Last sign-in</th>
          <th scope="col">Confirmed</th>
          <th scope="col">Banned</th>
        </tr>
      </thead>
      <tbody>
        {users.map((user) => (
          <UserRow key={user.id} user={user} />
        ))}
      </tbody>
    </table>
  );
}

export function Users() {
  const [draft, setDraft] = useState("");
  const [filter, setFilter] = useState("");
  const [page, setPage] = useState(1);
  const listed = useLoad(async () => {
    const answer = await get<{ users: User[] }>(`/admin/users${query({ filter, page, per_page: PER_PAGE })}`);
    return { users: answer.data.users, total: totalOf(answer) };
  }, `${filter}|${page}`);
  const search = (event: Event) => {
    event.preventDefault();
    setFilter(draft.trim());
    setPage(1);
  };
  return (
    <>
      <div class="toolbar">
        <form onSubmit={search} class="inline">
          <label for="user-search">Search by email, phone or name</label>
          <input id="user-search" type="search" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
          <button type="submit">Search</button>
        </form>
        <a class="button" href={hrefOf({ page: "new-user" })}>
          Create or invite a user
        </a>
      </div>
      {listed.error && <Failed error={listed.error} />}
      {!listed.data && !listed.error && <Loading what="users" />}
      {listed.data && <UserTable users={listed.data.users} />}
      {listed.data && (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={listed.data.total}
          shown={listed.data.users.length}
          onPage={setPage}
          what="users"
        />
      )}
    </>
  );
}

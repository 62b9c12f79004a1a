import { useState } from "preact/hooks";
import { get, query, totalOf } from "../api.ts";
import { when } from "../format.ts";
import { useLoad } from "../load.ts";
import { Failed, Loading } from "../parts/notice.tsx";
import { Pager } from "../parts/pager.tsx";
import type { AuditEntry } from "../types.ts";

const PER_PAGE = 50;
/** GET /admin/audit's `query`: `<field>:<text>`, a case-insensitive substring of that field. */
const FIELDS = [
  { value: "author", label: "Actor" },
  { value: "action", label: "Action" },
  { value: "type", label: "Type" },
] as const;

function AuditTable({ entries }: { entries: readonly AuditEntry[] }) {
  if (entries.length === 0) return <p>No entries match.</p>;
  return (
    <table>
      <caption class="visually-hidden">Audit log entries, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Action</th>
          <th scope="col">Type</th>
          <th scope="col">Actor</th>
          <th scope="col">Address</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <th scope="row">{when(entry.created_at)}</th>
            <td>{entry.payload.action}</td>
            <td>{entry.payload.log_type ?? "—"}</td>
            <td>{entry.payload.actor_username || entry.payload.actor_id || "—"}</td>
            <td>{entry.ip_address || "—"}</td>
            <td class="wrap">{entry.payload.traits ? JSON.stringify(entry.payload.traits) : "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Audit() {
  const [field, setField] = useState<string>("action");
  const [text, setText] = useState("");
  const [applied, setApplied] = useState("");
  const [page, setPage] = useState(1);
  const listed = useLoad(async () => {
    const answer = await get<AuditEntry[]>(`/admin/audit${query({ query: applied, page, per_page: PER_PAGE })}`);
    return { entries: answer.data, total: totalOf(answer) };
  }, `${applied}|${page}`);
  const filter = (event: Event) => {
    event.preventDefault();
    setApplied(text.trim() ? `${field}:${text.trim()}` : "");
    setPage(1);
  };
  return (
    <>
      <form class="inline filters" onSubmit={filter}>
        <label for="audit-field">Filter on</label>
        <select id="audit-field" value={field} onChange={(e) => setField(e.currentTarget.value)}>
          {FIELDS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        <label for="audit-text">containing</label>
        <input id="audit-text" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Filter</button>
      </form>
      {listed.error && <Failed error={listed.error} />}
      {!listed.data && !listed.error && <Loading what="the audit log" />}
      {listed.data && <AuditTable entries={listed.data.entries} />}
      {listed.data && (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={listed.data.total}
          shown={listed.data.entries.length}
          onPage={setPage}
          what="entries"
        />
      )}
    </>
  );
}

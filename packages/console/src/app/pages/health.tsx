import { get, query, totalOf } from "../api.ts";
import { useLoad } from "../load.ts";
import { Failed, Loading } from "../parts/notice.tsx";

/** GET /ready answers 503 with the same body when a dependency it needs is down: both are an answer here. */
async function readiness(): Promise<{ ready: boolean; dependencies: Record<string, string> }> {
  const response = await fetch("/ready", { cache: "no-store", credentials: "omit" });
  return { ready: response.ok, dependencies: (await response.json()) as Record<string, string> };
}

async function figures() {
  const [health, users, audit, keys] = await Promise.all([
    get<{ version: string }>("/health"),
    get(`/admin/users${query({ per_page: 1 })}`),
    get(`/admin/audit${query({ per_page: 1 })}`),
    get<{ keys: unknown[] }>("/.well-known/jwks.json"),
  ]);
  return [
    ["Version", health.data.version],
    ["Users", String(totalOf(users) ?? "—")],
    ["Audit log entries", String(totalOf(audit) ?? "—")],
    ["Public signing keys", String(keys.data.keys.length)],
  ] as const;
}

function Readiness() {
  const loaded = useLoad(readiness, "ready");
  if (loaded.error) return <Failed error={loaded.error} />;
  if (!loaded.data) return <Loading what="readiness" />;
  return (
    <>
      <p>
        This instance is <strong>{loaded.data.ready ? "ready" : "not ready"}</strong> (GET /ready answered{" "}
        {loaded.data.ready ? "200" : "503"}).
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Dependency</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(loaded.data.dependencies).map(([name, state]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td class={state === "ok" ? "ok" : "bad"}>{state}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={loaded.reload}>
        Check again
      </button>
    </>
  );
}

function Figures() {
  const loaded = useLoad(figures, "figures");
  if (loaded.error) return <Failed error={loaded.error} />;
  if (!loaded.data) return <Loading what="the figures" />;
  return (
    <dl class="summary">
      {loaded.data.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Health() {
  return (
    <>
      <section aria-labelledby="ready-heading">
        <h2 id="ready-heading">Readiness</h2>
        <Readiness />
      </section>
      <section aria-labelledby="figures-heading">
        <h2 id="figures-heading">Figures</h2>
        <Figures />
      </section>
    </>
  );
}

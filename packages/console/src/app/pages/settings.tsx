import { useState } from "preact/hooks";
import { ApiError, get } from "../api.ts";
import { useLoad } from "../load.ts";
import { Failed, Loading } from "../parts/notice.tsx";

interface EffectiveSetting {
  readonly name: string;
  readonly value: string | null;
  readonly source: string;
}

type Jwk = Record<string, unknown> & { kid?: string; alg?: string; kty?: string; use?: string; crv?: string };

/** GET /admin/settings, or undefined where this server has none (it answers 404). */
async function effectiveSettings() {
  try {
    return (await get<{ profile: string; settings: EffectiveSetting[] }>("/admin/settings")).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

function SettingsTable() {
  const loaded = useLoad(effectiveSettings, "settings");
  const [filter, setFilter] = useState("");
  const [setOnly, setSetOnly] = useState(true);
  if (loaded.error) return <Failed error={loaded.error} />;
  if (loaded.loading) return <Loading what="the settings" />;
  if (!loaded.data) return <p>Not available on this server.</p>;
  const shown = loaded.data.settings.filter(
    (s) =>
      s.name.toLowerCase().includes(filter.trim().toLowerCase()) &&
      (!setOnly || (s.source !== "default" && s.source !== "unset")),
  );
  return (
    <>
      <p>
        Profile: <strong>{loaded.data.profile}</strong>. Secrets are redacted by the server; this view is read-only.
      </p>
      <div class="field inline">
        <label for="settings-filter">Show settings whose name contains</label>
        <input id="settings-filter" type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </div>
      <div class="field checkbox">
        <input
          id="settings-set-only"
          type="checkbox"
          checked={setOnly}
          onChange={(e) => setSetOnly(e.currentTarget.checked)}
        />
        <label for="settings-set-only">Only the settings given a value (not defaults, not unset)</label>
      </div>
      <table>
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">Value</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((setting) => (
            <tr key={setting.name}>
              <th scope="row">
                <code>{setting.name}</code>
              </th>
              <td class="wrap">{setting.value ?? "—"}</td>
              <td>{setting.source}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function SigningKeys() {
  const loaded = useLoad(async () => (await get<{ keys: Jwk[] }>("/.well-known/jwks.json")).data.keys, "jwks");
  if (loaded.error) return <Failed error={loaded.error} />;
  if (!loaded.data) return <Loading what="the signing keys" />;
  if (loaded.data.length === 0) return <p>No public keys: tokens are signed with the shared secret (HS256).</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Key id</th>
          <th scope="col">Algorithm</th>
          <th scope="col">Type</th>
          <th scope="col">Public key</th>
        </tr>
      </thead>
      <tbody>
        {loaded.data.map((key) => (
          <tr key={key.kid}>
            <th scope="row">
              <code>{key.kid ?? "—"}</code>
            </th>
            <td>{key.alg ?? "—"}</td>
            <td>{[key.kty, key.crv].filter(Boolean).join(" ")}</td>
            <td class="wrap">
              <code>{JSON.stringify(key)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Providers() {
  const loaded = useLoad(async () => (await get<{ external: Record<string, boolean> }>("/settings")).data, "public");
  if (loaded.error) return <Failed error={loaded.error} />;
  if (!loaded.data) return <Loading what="the providers" />;
  const on = Object.entries(loaded.data.external).filter(([, enabled]) => enabled === true);
  if (on.length === 0) return <p>None.</p>;
  return (
    <ul class="tags">
      {on.map(([name]) => (
        <li key={name}>{name}</li>
      ))}
    </ul>
  );
}

export function Settings() {
  return (
    <>
      <section aria-labelledby="providers-heading">
        <h2 id="providers-heading">Sign-in providers switched on</h2>
        <Providers />
      </section>
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Signing keys (public parts)</h2>
        <SigningKeys />
      </section>
      <section aria-labelledby="effective-heading">
        <h2 id="effective-heading">Effective settings</h2>
        <SettingsTable />
      </section>
    </>
  );
}

import { useState } from "preact/hooks";
import { call } from "../api.ts";
import { when } from "../format.ts";
import type { Factor, Passkey, User } from "../types.ts";
import { Notice } from "./notice.tsx";
import { useAction } from "./use-action.ts";

export function UserIdentities({ user }: { user: User }) {
  const identities = user.identities ?? [];
  return (
    <section aria-labelledby="identities-heading">
      <h3 id="identities-heading">Identities</h3>
      {identities.length === 0 ? (
        <p>None.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Email</th>
              <th scope="col">Created</th>
              <th scope="col">Last sign-in</th>
            </tr>
          </thead>
          <tbody>
            {identities.map((identity) => (
              <tr key={identity.identity_id ?? `${identity.provider}:${identity.id}`}>
                <th scope="row">{identity.provider}</th>
                <td>{identity.email ?? "—"}</td>
                <td>{when(identity.created_at)}</td>
                <td>{when(identity.last_sign_in_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A column of a removable list: its heading, and what a row shows under it. */
interface Column<T> {
  readonly heading: string;
  readonly cell: (item: T) => string;
}

const nameOf = (item: { id: string; friendly_name?: string }) => item.friendly_name || item.id;

/**
 * A user's factors or passkeys: a row each, named in its first cell, with a button that removes it through the admin
 * API (DELETE on `pathOf`), then the page's data read again.
 */
function RemovableList<T extends { id: string; friendly_name?: string }>(props: {
  kind: "factor" | "passkey";
  items: readonly T[];
  columns: readonly Column<T>[];
  pathOf: (item: T) => string;
  onChanged: () => void;
}) {
  const action = useAction();
  const remove = (item: T) =>
    action.run(async () => {
      await call("DELETE", props.pathOf(item));
      props.onChanged();
      return `${props.kind === "factor" ? "Factor" : "Passkey"} ${nameOf(item)} removed.`;
    });
  return (
    <>
      {props.items.length === 0 ? (
        <p>None.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              {props.columns.map((column) => (
                <th key={column.heading} scope="col">
                  {column.heading}
                </th>
              ))}
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {props.items.map((item) => (
              <tr key={item.id}>
                <th scope="row">{nameOf(item)}</th>
                {props.columns.map((column) => (
                  <td key={column.heading}>{column.cell(item)}</td>
                ))}
                <td>
                  <button type="button" class="danger" disabled={action.busy} onClick={() => remove(item)}>
                    Remove {props.kind} {nameOf(item)}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Notice message={action.message} />
    </>
  );
}

const FACTOR_COLUMNS: readonly Column<Factor>[] = [
  { heading: "Type", cell: (factor) => factor.factor_type },
  { heading: "Status", cell: (factor) => factor.status },
  { heading: "Created", cell: (factor) => when(factor.created_at) },
];

export function UserFactors(props: { user: User; factors: readonly Factor[]; onChanged: () => void }) {
  return (
    <section aria-labelledby="factors-heading">
      <h3 id="factors-heading">MFA factors</h3>
      <RemovableList
        kind="factor"
        items={props.factors}
        columns={FACTOR_COLUMNS}
        pathOf={(factor) => `/admin/users/${props.user.id}/factors/${factor.id}`}
        onChanged={props.onChanged}
      />
    </section>
  );
}

const PASSKEY_COLUMNS: readonly Column<Passkey>[] = [
  { heading: "Created", cell: (passkey) => when(passkey.created_at) },
  { heading: "Last used", cell: (passkey) => when(passkey.last_used_at) },
];

/** Shown once the user has had passkeys; each can be removed (the user then signs in another way). */
export function UserPasskeys(props: { user: User; passkeys: readonly Passkey[]; onChanged: () => void }) {
  const [hadSome] = useState(props.passkeys.length > 0);
  if (!hadSome && props.passkeys.length === 0) return null;
  return (
    <section aria-labelledby="passkeys-heading">
      <h3 id="passkeys-heading">Passkeys</h3>
      <RemovableList
        kind="passkey"
        items={props.passkeys}
        columns={PASSKEY_COLUMNS}
        pathOf={(passkey) => `/admin/users/${props.user.id}/passkeys/${passkey.id}`}
        onChanged={props.onChanged}
      />
    </section>
  );
}

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

export function UserFactors(props: { user: User; factors: readonly Factor[]; onChanged: () => void }) {
  const action = useAction();
  const remove = (factor: Factor) =>
    action.run(async () => {
      await call("DELETE", `/admin/users/${props.user.id}/factors/${factor.id}`);
      props.onChanged();
      return `Factor ${factor.friendly_name || factor.id} removed.`;
    });
  return (
    <section aria-labelledby="factors-heading">
      <h3 id="factors-heading">MFA factors</h3>
      {props.factors.length === 0 ? (
        <p>None.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {props.factors.map((factor) => (
              <tr key={factor.id}>
                <th scope="row">{factor.friendly_name || factor.id}</th>
                <td>{factor.factor_type}</td>
                <td>{factor.status}</td>
                <td>{when(factor.created_at)}</td>
                <td>
                  <button type="button" class="danger" disabled={action.busy} onClick={() => remove(factor)}>
                    Remove factor {factor.friendly_name || factor.id}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Notice message={action.message} />
    </section>
  );
}

/** Shown only when the user has passkeys; each can be removed (the user then signs in another way). */
export function UserPasskeys(props: { user: User; passkeys: readonly Passkey[]; onChanged: () => void }) {
  const action = useAction();
  const remove = (passkey: Passkey) =>
    action.run(async () => {
      await call("DELETE", `/admin/users/${props.user.id}/passkeys/${passkey.id}`);
      props.onChanged();
      return `Passkey ${passkey.friendly_name || passkey.id} removed.`;
    });
  if (props.passkeys.length === 0 && action.message === undefined) return null;
  return (
    <section aria-labelledby="passkeys-heading">
      <h3 id="passkeys-heading">Passkeys</h3>
      {props.passkeys.length === 0 ? (
        <p>None.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {props.passkeys.map((passkey) => (
              <tr key={passkey.id}>
                <th scope="row">{passkey.friendly_name || passkey.id}</th>
                <td>{when(passkey.created_at)}</td>
                <td>{when(passkey.last_used_at)}</td>
                <td>
                  <button type="button" class="danger" disabled={action.busy} onClick={() => remove(passkey)}>
                    Remove passkey {passkey.friendly_name || passkey.id}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Notice message={action.message} />
    </section>
  );
}

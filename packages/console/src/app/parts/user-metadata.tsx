import { useState } from "preact/hooks";
import { call } from "../api.ts";
import type { User } from "../types.ts";
import { JsonField, parseObject } from "./json-field.tsx";
import { Notice } from "./notice.tsx";
import { useAction } from "./use-action.ts";

const pretty = (value: unknown) => JSON.stringify(value ?? {}, null, 2);

/**
 * The API merges metadata key by key, removing a key set to null (GoTrue's rule): a key the admin deleted from the
 * text is sent as null, so that what is saved is what the admin sees.
 */
function withRemovals(edited: Record<string, unknown>, before: Record<string, unknown>): Record<string, unknown> {
  const removed = Object.keys(before).filter((key) => !(key in edited));
  return { ...Object.fromEntries(removed.map((key) => [key, null])), ...edited };
}

export function UserMetadata({ user, onChanged }: { user: User; onChanged: () => void }) {
  const [userText, setUserText] = useState(() => pretty(user.user_metadata));
  const [appText, setAppText] = useState(() => pretty(user.app_metadata));
  const [errors, setErrors] = useState<{ user?: string; app?: string }>({});
  const action = useAction();
  const save = (event: Event) => {
    event.preventDefault();
    const userMetadata = parseObject(userText);
    const appMetadata = parseObject(appText);
    // Nothing is sent while either field is not a JSON object.
    if ("error" in userMetadata || "error" in appMetadata) {
      setErrors({
        user: "error" in userMetadata ? userMetadata.error : undefined,
        app: "error" in appMetadata ? appMetadata.error : undefined,
      });
      action.setMessage(undefined);
      return;
    }
    setErrors({});
    void action.run(async () => {
      const body = {
        user_metadata: withRemovals(userMetadata.value, user.user_metadata),
        app_metadata: withRemovals(appMetadata.value, user.app_metadata),
      };
      const { data } = await call<User>("PUT", `/admin/users/${user.id}`, { body });
      // What the server now holds, as it holds it.
      setUserText(pretty(data.user_metadata));
      setAppText(pretty(data.app_metadata));
      onChanged();
      return "Metadata saved.";
    });
  };
  return (
    <section aria-labelledby="metadata-heading">
      <h3 id="metadata-heading">Metadata</h3>
      <form onSubmit={save} noValidate>
        <div class="columns">
          <JsonField
            id="user-metadata"
            label="User metadata (JSON)"
            text={userText}
            error={errors.user}
            onInput={setUserText}
          />
          <JsonField
            id="app-metadata"
            label="App metadata (JSON)"
            text={appText}
            error={errors.app}
            onInput={setAppText}
          />
        </div>
        <button type="submit" disabled={action.busy}>
          Save metadata
        </button>
        <Notice message={action.message} />
      </form>
    </section>
  );
}

import { useRef, useState } from "preact/hooks";
import { call } from "../api.ts";
import { go } from "../route.ts";
import type { User } from "../types.ts";
import { Notice } from "./notice.tsx";
import { useAction } from "./use-action.ts";

/**
 * Deleting takes a second step: a modal dialog where the admin types the user's email (or id) before the delete
 * button works. A soft delete keeps the row, its addresses scrambled; a hard one removes the user for good.
 */
export function UserDelete({ user }: { user: User }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [soft, setSoft] = useState(true);
  const [typed, setTyped] = useState("");
  const action = useAction();
  const expected = user.email || user.id;
  const open = () => {
    setTyped("");
    dialog.current?.showModal();
  };
  const remove = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await call("DELETE", `/admin/users/${user.id}`, { body: { should_soft_delete: soft } });
      dialog.current?.close();
      go({ page: "users" });
      return undefined;
    });
  };
  return (
    <section aria-labelledby="delete-heading">
      <h3 id="delete-heading">Delete</h3>
      <div class="field checkbox">
        <input id="soft-delete" type="checkbox" checked={soft} onChange={(e) => setSoft(e.currentTarget.checked)} />
        <label for="soft-delete">Soft delete (keep the row, scramble its addresses)</label>
      </div>
      <button type="button" class="danger" onClick={open}>
        Delete user…
      </button>
      <dialog ref={dialog} aria-labelledby="confirm-heading">
        <form onSubmit={remove}>
          <h2 id="confirm-heading">
            {soft ? "Soft-delete" : "Delete for good"} {expected}?
          </h2>
          <div class="field">
            <label for="confirm-delete">Type {user.email ? "the email address" : "the user id"} to confirm</label>
            <input
              id="confirm-delete"
              autocomplete="off"
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
            />
          </div>
          <div class="buttons">
            <button type="submit" class="danger" disabled={action.busy || typed.trim() !== expected}>
              Delete user
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
          <Notice message={action.message} />
        </form>
      </dialog>
    </section>
  );
}

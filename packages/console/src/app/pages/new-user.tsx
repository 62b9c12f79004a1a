import { useState } from "preact/hooks";
import { call } from "../api.ts";
import { Notice } from "../parts/notice.tsx";
import { useAction } from "../parts/use-action.ts";
import { go } from "../route.ts";
import type { User } from "../types.ts";

function CreateForm() {
  const [email, setEmail] = useState("");
  const [phone, setPhone] = useState("");
  const [password, setPassword] = useState("");
  const [confirmed, setConfirmed] = useState(true);
  const action = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const body = {
        email: email || undefined,
        phone: phone || undefined,
        password: password || undefined,
        email_confirm: email ? confirmed : undefined,
        phone_confirm: phone ? confirmed : undefined,
      };
      const { data } = await call<User>("POST", "/admin/users", { body });
      go({ page: "user", id: data.id });
      return undefined;
    });
  };
  return (
    <form class="card" onSubmit={create} aria-labelledby="create-heading">
      <h2 id="create-heading">Create a user</h2>
      <div class="field">
        <label for="new-email">Email</label>
        <input id="new-email" type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="new-phone">Phone (E.164, optional)</label>
        <input id="new-phone" type="tel" value={phone} onInput={(e) => setPhone(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="new-password">Password (optional)</label>
        <input
          id="new-password"
          type="password"
          autocomplete="new-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </div>
      <div class="field checkbox">
        <input
          id="new-confirmed"
          type="checkbox"
          checked={confirmed}
          onChange={(e) => setConfirmed(e.currentTarget.checked)}
        />
        <label for="new-confirmed">Mark the address as confirmed</label>
      </div>
      <button type="submit" disabled={action.busy}>
        Create user
      </button>
      <Notice message={action.message} />
    </form>
  );
}

function InviteForm() {
  const [email, setEmail] = useState("");
  const action = useAction();
  const invite = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await call("POST", "/invite", { body: { email } });
      setEmail("");
      return `Invitation sent to ${email}.`;
    });
  };
  return (
    <form class="card" onSubmit={invite} aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a user</h2>
      <div class="field">
        <label for="invite-email">Email</label>
        <input id="invite-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </div>
      <button type="submit" disabled={action.busy}>
        Send invitation
      </button>
      <Notice message={action.message} />
    </form>
  );
}

export function NewUser() {
  return (
    <div class="columns">
      <CreateForm />
      <InviteForm />
    </div>
  );
}

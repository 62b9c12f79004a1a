import { useState } from "preact/hooks";
import { call } from "../api.ts";
import { isBanned } from "../format.ts";
import type { User } from "../types.ts";
import { Notice } from "./notice.tsx";
import { useAction } from "./use-action.ts";

/** The ban durations offered, as ban_duration values (Go durations: "forever" is a hundred years). */
const BANS = [
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "168h", label: "7 days" },
  { value: "876000h", label: "Forever" },
] as const;

const userPath = (user: User) => `/admin/users/${user.id}`;

function BanControls({ user, onChanged }: { user: User; onChanged: () => void }) {
  const [duration, setDuration] = useState<string>(BANS[1].value);
  const action = useAction();
  const ban = (banDuration: string, done: string) =>
    action.run(async () => {
      await call("PUT", userPath(user), { body: { ban_duration: banDuration } });
      onChanged();
      return done;
    });
  return (
    <fieldset>
      <legend>Ban</legend>
      <label for="ban-duration">Ban for</label>
      <select id="ban-duration" value={duration} onChange={(e) => setDuration(e.currentTarget.value)}>
        {BANS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <button type="button" class="danger" disabled={action.busy} onClick={() => ban(duration, "User banned.")}>
        Ban user
      </button>
      <button
        type="button"
        disabled={action.busy || !isBanned(user.banned_until)}
        onClick={() => ban("none", "User unbanned.")}
      >
        Unban user
      </button>
      <Notice message={action.message} />
    </fieldset>
  );
}

function MailActions({ user, onChanged }: { user: User; onChanged: () => void }) {
  const action = useAction();
  const email = user.email;
  const confirm = () =>
    action.run(async () => {
      await call("PUT", userPath(user), { body: { email_confirm: true } });
      onChanged();
      return "Email address confirmed.";
    });
  const send = (path: string, done: string) =>
    action.run(async () => {
      await call("POST", path, { body: { email } });
      return done;
    });
  return (
    <fieldset>
      <legend>Email</legend>
      {!email && <p>This user has no email address.</p>}
      <button type="button" disabled={action.busy || !email || !!user.email_confirmed_at} onClick={confirm}>
        Confirm email
      </button>
      <button type="button" disabled={action.busy || !email} onClick={() => send("/recover", "Recovery link sent.")}>
        Send recovery link
      </button>
      <button type="button" disabled={action.busy || !email} onClick={() => send("/magiclink", "Magic link sent.")}>
        Send magic link
      </button>
      <Notice message={action.message} />
    </fieldset>
  );
}

function GenerateLink({ user }: { user: User }) {
  const [type, setType] = useState("magiclink");
  const [link, setLink] = useState<string>();
  const action = useAction();
  const generate = () =>
    action.run(async () => {
      const { data } = await call<{ action_link: string }>("POST", "/admin/generate_link", {
        body: { type, email: user.email },
      });
      setLink(data.action_link);
      return "Link generated: it works once, for the address's owner only.";
    });
  const copy = () =>
    action.run(async () => {
      await navigator.clipboard.writeText(link ?? "");
      return "Link copied.";
    });
  return (
    <fieldset>
      <legend>Generate a link</legend>
      <label for="link-type">Kind of link</label>
      <select id="link-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
        <option value="magiclink">Magic link</option>
        <option value="recovery">Recovery</option>
      </select>
      <button type="button" disabled={action.busy || !user.email} onClick={generate}>
        Generate link
      </button>
      {link && (
        <div class="field">
          <label for="generated-link">Generated link</label>
          <input id="generated-link" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={copy}>
            Copy link
          </button>
        </div>
      )}
      <Notice message={action.message} />
    </fieldset>
  );
}

export function UserActions({ user, onChanged }: { user: User; onChanged: () => void }) {
  return (
    <section aria-labelledby="actions-heading">
      <h3 id="actions-heading">Actions</h3>
      <div class="actions">
        <MailActions user={user} onChanged={onChanged} />
        <GenerateLink user={user} />
        <BanControls user={user} onChanged={onChanged} />
      </div>
    </section>
  );
}

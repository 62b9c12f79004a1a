/** The outcome of an action: a polite status, or an alert for a failure. Empty, it still holds the live region. */
export function Notice({ message }: { message: { text: string; error?: boolean } | undefined }) {
  if (message?.error) {
    return (
      <p class="notice error" role="alert">
        {message.text}
      </p>
    );
  }
  return (
    <p class="notice" role="status">
      {message?.text ?? ""}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p class="muted">Loading {what}…</p>;
}

export function Failed({ error }: { error: string }) {
  return (
    <p class="notice error" role="alert">
      {error}
    </p>
  );
}

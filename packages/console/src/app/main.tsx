import "./styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { call } from "./api.ts";
import { Audit } from "./pages/audit.tsx";
import { Health } from "./pages/health.tsx";
import { NewUser } from "./pages/new-user.tsx";
import { Settings } from "./pages/settings.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { UserPage } from "./pages/user.tsx";
import { Users } from "./pages/users.tsx";
import { Layout } from "./parts/layout.tsx";
import { type Route, useRoute } from "./route.ts";
import { onSignedOut, session } from "./session.ts";

const TITLES: Record<Route["page"], string> = {
  users: "Users",
  user: "User",
  "new-user": "Create or invite a user",
  audit: "Audit log",
  settings: "Settings",
  health: "Health",
};

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "users":
      return <Users />;
    case "user":
      return <UserPage id={route.id} />;
    case "new-user":
      return <NewUser />;
    case "audit":
      return <Audit />;
    case "settings":
      return <Settings />;
    case "health":
      return <Health />;
  }
}

function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => session.token() !== null);
  const [reason, setReason] = useState<string>();
  useEffect(
    () =>
      onSignedOut(() => {
        setReason("The API refused the token (expired, revoked or not an admin's): sign in again.");
        setSignedIn(false);
      }),
    [],
  );
  if (!signedIn) return <SignIn reason={reason} onSignedIn={() => setSignedIn(true)} />;
  const signOut = () => {
    // An account's session ends on the server too; a key is only forgotten.
    const token = session.token() ?? "";
    void call("POST", "/logout?scope=local", { token }).catch(() => undefined);
    session.clear();
    setReason("Signed out.");
    setSignedIn(false);
  };
  return (
    <Layout route={route} title={TITLES[route.page]} onSignOut={signOut}>
      <Page key={route.page === "user" ? route.id : route.page} route={route} />
    </Layout>
  );
}

render(<App />, document.getElementById("app")!);

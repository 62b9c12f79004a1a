import { useEffect, useState } from "preact/hooks";

// Hash routes (#/users, #/users/<id>, #/audit, ...): the server serves one page, whatever the route, and a reload
// or a shared link lands where it was.

export type Route =
  | { readonly page: "users" }
  | { readonly page: "user"; readonly id: string }
  | { readonly page: "new-user" }
  | { readonly page: "audit" }
  | { readonly page: "settings" }
  | { readonly page: "health" };

function parseRoute(hash: string): Route {
  const [page = "", id] = hash.replace(/^#\/?/, "").split("/");
  if (page === "users" && id) return { page: "user", id: decodeURIComponent(id) };
  if (page === "new-user" || page === "audit" || page === "settings" || page === "health") return { page };
  return { page: "users" };
}

export const hrefOf = (route: Route): string =>
  route.page === "user" ? `#/users/${encodeURIComponent(route.id)}` : `#/${route.page}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

export function go(route: Route): void {
  location.hash = hrefOf(route);
}

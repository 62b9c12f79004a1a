import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import type { Route } from "../route.ts";

const SECTIONS = [
  { page: "users", label: "Users" },
  { page: "audit", label: "Audit log" },
  { page: "settings", label: "Settings" },
  { page: "health", label: "Health" },
] as const;

/** The section a route belongs to, for the navigation's aria-current. */
const sectionOf = (route: Route): string => (route.page === "user" || route.page === "new-user" ? "users" : route.page);

export function Layout(props: { route: Route; title: string; onSignOut: () => void; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A new page says so: its title in the tab, and focus on its heading for keyboard and screen-reader users.
  useEffect(() => {
    document.title = `${props.title} · Latchkey console`;
    heading.current?.focus();
  }, [props.title]);
  const current = sectionOf(props.route);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="bar">
        <span class="brand">Latchkey console</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map(({ page, label }) => (
              <li key={page}>
                <a href={`#/${page}`} aria-current={current === page ? "page" : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="quiet" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.children}
      </main>
    </>
  );
}

import type { Context } from "hono";

/**
 * GoTrue's paging headers: `X-Total-Count`, and `Link` with `next` (while there is a next page) and `last`. The
 * links keep the request's query with `page` first: auth-js reads the page number right after the first `=`.
 */
export function setPaginationHeaders(c: Context, paging: { total: number; page: number; perPage: number }): void {
  const lastPage = Math.ceil(paging.total / paging.perPage);
  const url = new URL(c.req.url);
  const pageUrl = (page: number) => {
    const query = new URLSearchParams([
      ["page", String(page)],
      ["per_page", String(paging.perPage)],
    ]);
    const rest = [...url.searchParams.entries()]
      .filter(([key]) => key !== "page" && key !== "per_page")
      .sort(([a], [b]) => a.localeCompare(b));
    for (const [key, value] of rest) query.append(key, value);
    return `${url.pathname}?${query.toString()}`;
  };
  const links = [
    ...(lastPage > paging.page ? [`<${pageUrl(paging.page + 1)}>; rel="next"`] : []),
    `<${pageUrl(lastPage)}>; rel="last"`,
  ];
  c.header("Link", links.join(", "));
  c.header("X-Total-Count", String(paging.total));
}

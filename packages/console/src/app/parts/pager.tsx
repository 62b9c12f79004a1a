/** Previous and next page, and where the admin is among the pages (from X-Total-Count when the API gives it). */
export function Pager(props: {
  page: number;
  perPage: number;
  total: number | undefined;
  shown: number;
  what: string;
  onPage: (page: number) => void;
}) {
  const { page, perPage, total, shown } = props;
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / perPage));
  const hasNext = pages === undefined ? shown === perPage : page < pages;
  return (
    <nav class="pager" aria-label={`Pages of ${props.what}`}>
      <button type="button" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page}
        {pages === undefined ? "" : ` of ${pages}`}
        {total === undefined ? "" : ` (${total} ${props.what})`}
      </span>
      <button type="button" disabled={!hasNext} onClick={() => props.onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}

import {ApiError, type ApiCall} from '../errors.js';

/** Page size asked for when the caller gives none. */
export const DEFAULT_PER_PAGE = 100;
/** A listing gives up beyond this many pages when the caller gives no cap. */
export const DEFAULT_MAX_PAGES = 1000;

/** One page as the service answered it. */
export interface Page<T> {
  items: T[];
  /** The page size the service says it used (a positive integer), when it says so. */
  perPage?: number;
  /** How many items there are in all, when the service says so. */
  total?: number;
  /** HTTP status of the answer, for errors. */
  status: number;
}

export interface PaginateOpts<T> {
  /** What the listing is, for errors: `list runner images` fails as "Failed to list runner images: …". */
  call: ApiCall;
  /** What the items are called in errors, e.g. `profiles`. */
  noun: string;
  /** Page size asked for (default DEFAULT_PER_PAGE). */
  perPage?: number;
  /** Pages fetched at most before giving up with an error (default DEFAULT_MAX_PAGES). */
  maxPages?: number;
  /** Fetches page `page` (from 1) of `perPage` items. */
  fetchPage(page: number, perPage: number): Promise<Page<T>>;
  /** The id of an item: a page with the same ids as the one before is a repeat. */
  idOf(item: T): string;
}

/**
 * Every item of a paged listing (`page` from 1, `per_page`). It stops at an empty page; at a short one (fewer
 * items than asked, or than the page size the service says it used when it clamps the size asked for); or
 * once it holds the `total` the service gives. A page that repeats an earlier one means the service ignores
 * `page`: when the earlier page was longer than asked the service ignores paging altogether and that page was
 * everything, otherwise nobody can tell what is missing, so it fails. So does a listing of more
 * than `maxPages` full pages.
 */
export async function paginate<T>(opts: PaginateOpts<T>): Promise<T[]> {
  const perPage = opts.perPage ?? DEFAULT_PER_PAGE;
  const maxPages = opts.maxPages ?? DEFAULT_MAX_PAGES;
  if (!Number.isSafeInteger(perPage) || perPage < 1) {
    throw new RangeError(`paginate(${opts.call}): perPage must be an integer >= 1, got ${perPage}`);
  }
  if (!Number.isSafeInteger(maxPages) || maxPages < 1) {
    throw new RangeError(`paginate(${opts.call}): maxPages must be an integer >= 1, got ${maxPages}`);
  }
  const all: T[] = [];
  // The ids of every page seen, and whether the page was longer than asked.
  const seen = new Map<string, {page: number; oversized: boolean}>();
  for (let page = 1; ; page++) {
    const got = await opts.fetchPage(page, perPage);
    if (got.items.length === 0) break;
    const ids = JSON.stringify(got.items.map(opts.idOf));
    const earlier = seen.get(ids);
    if (earlier) {
      if (earlier.oversized) break;
      throw new ApiError({
        call: opts.call,
        status: got.status,
        hint: `unexpected response: page ${page} repeats page ${earlier.page} (is the page parameter ignored?); stopped`
      });
    }
    all.push(...got.items);
    // A reported size larger than asked is not believed: we asked for at most perPage.
    const size = Math.min(perPage, got.perPage ?? perPage);
    if (got.items.length < size) break;
    if (got.total !== undefined && all.length >= got.total) break;
    if (page === maxPages) {
      throw new ApiError({
        call: opts.call,
        status: got.status,
        hint: `unexpected response: more than ${maxPages} pages of ${perPage} ${opts.noun}; stopped`
      });
    }
    seen.set(ids, {page, oversized: got.items.length > size});
  }
  return all;
}

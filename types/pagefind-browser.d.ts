// What docs/assets/javascripts/search.js reads of Pagefind's browser module (the site's
// search/pagefind/pagefind.js, which Pagefind writes at build; its npm package declares only
// the indexing API). From Pagefind's documentation of search(), data() and sub_results.

/** A section of a result's page: the part under one heading. */
export interface PagefindSubResult {
  title: string;
  url: string;
  excerpt: string;
  /** The places (word numbers in the page's content) of the words searched. */
  locations?: number[];
  /** The heading the section starts at ("h2"), where it is one. */
  anchor?: { element: string; id: string; text?: string; location: number };
}

/** A result's page, as data() gives it. */
export interface PagefindData {
  url: string;
  content: string;
  excerpt: string;
  meta: Record<string, string | undefined>;
  filters?: Record<string, string[]>;
  locations: number[];
  sub_results?: PagefindSubResult[];
}

/** One page found, its data fetched on demand. */
export interface PagefindResult {
  id: string;
  data(): Promise<PagefindData>;
}

/** What search() answers. */
export interface PagefindSearch {
  results: PagefindResult[];
  /** Each filter's values, with the results counted under each. */
  filters?: Record<string, Record<string, number>>;
}

export interface PagefindOptions {
  baseUrl?: string;
  excerptLength?: number;
  ranking?: { metaWeights?: Record<string, number> };
}

/** The module search/pagefind/pagefind.js. */
export interface Pagefind {
  options(options: PagefindOptions): Promise<void>;
  init(): Promise<void>;
  filters(): Promise<Record<string, Record<string, number>>>;
  search(term: string, options?: { filters?: Record<string, string> }): Promise<PagefindSearch>;
}

// Loaded in <head>, before Material's bundle, which reads two files as it starts: the
// sitemap (instant loading intercepts only the links it lists) and the search index.
//
// 1. A build without SITE_URL (any local build) lists paths in its sitemap, such as
//    "/orcus/combat/", rather than a guessed localhost address. Material parses each entry
//    as an absolute URL; resolve the paths against the site root this script was loaded
//    from, so instant loading works on whatever host and port the site is served.
// 2. Each system's pages search their own index (hooks/postprocess/search_scopes.py): the system's
//    full text and the other systems' titles. The index stays loaded across instant
//    navigations, so instant loading keeps to the scope the page was opened in: links
//    into another system's pages load the page afresh, with that system's index.
(() => {
  const root = new URL("../../", document.currentScript.src);
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? "";
  const scope = meta("search-scope");
  const systems = new Set(meta("site-systems").split(" ").filter(Boolean));
  const systemOf = (url) => {
    const first = url.pathname.slice(root.pathname.length).split("/")[0];
    return systems.has(first) ? first : "";
  };

  const parse = DOMParser.prototype.parseFromString;
  DOMParser.prototype.parseFromString = function (text, type) {
    const parsed = parse.call(this, text, type);
    if (type !== "text/xml" || parsed.documentElement?.localName !== "urlset") return parsed;
    for (const entry of [...parsed.getElementsByTagName("url")]) {
      const loc = entry.getElementsByTagName("loc")[0];
      if (!loc) continue;
      const path = loc.textContent.trim();
      const url = path.startsWith("/") && !path.startsWith("//")
        ? new URL(path.slice(1), root)
        : new URL(path);
      loc.textContent = url.href;
      const system = systemOf(url);
      if (system && system !== scope) entry.remove();
    }
    return parsed;
  };

  const index = new URL("search/search_index.json", root).href;
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (scope && new URL(url, location.href).href === index) {
      url = new URL(`search/scope-${scope}.json`, root).href;
    }
    return open.call(this, method, url, ...rest);
  };
})();

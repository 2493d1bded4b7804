// Material's instant loading reads sitemap.xml and only intercepts links to the URLs it
// lists, which it parses as absolute URLs. A build without SITE_URL (any local build)
// lists paths such as "/orcus/combat/" instead of pointing at a guessed localhost address;
// this resolves them against the site root this script was loaded from, so instant loading
// works on whatever host and port the site is served. Absolute entries are left alone.
(() => {
  const root = new URL("../../", document.currentScript.src);
  const parse = DOMParser.prototype.parseFromString;
  DOMParser.prototype.parseFromString = function (text, type) {
    const parsed = parse.call(this, text, type);
    if (type === "text/xml" && parsed.documentElement?.localName === "urlset") {
      for (const loc of parsed.getElementsByTagName("loc")) {
        const path = loc.textContent.trim();
        if (path.startsWith("/") && !path.startsWith("//")) {
          loc.textContent = new URL(path.slice(1), root).href;
        }
      }
    }
    return parsed;
  };
})();

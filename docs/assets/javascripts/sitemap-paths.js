// Loaded in <head>, before Material's bundle, which reads the sitemap as it starts:
// instant loading intercepts only the links the sitemap lists.
//
// A build without SITE_URL (any local build) lists paths in its sitemap, such as
// "/orcus/combat/", rather than a guessed localhost address. Material parses each entry as
// an absolute URL; resolve the paths against the site root this script was loaded from, so
// instant loading works on whatever host and port the site is served, across every page:
// the calculators' Python stays loaded from a calculator to a rule and back.
(() => {
  const root = new URL("../../", /** @type {HTMLScriptElement} */ (document.currentScript).src);
  const parse = DOMParser.prototype.parseFromString;
  DOMParser.prototype.parseFromString = function (text, type) {
    const parsed = parse.call(this, text, type);
    if (type !== "text/xml" || parsed.documentElement?.localName !== "urlset") return parsed;
    for (const loc of [...parsed.getElementsByTagName("loc")]) {
      const path = loc.textContent.trim();
      if (path.startsWith("/") && !path.startsWith("//")) {
        loc.textContent = new URL(path.slice(1), root).href;
      }
    }
    return parsed;
  };
})();
